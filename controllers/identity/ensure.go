package identity

import (
	"context"
	"fmt"

	"github.com/c5c3/orderhub/internal/keystone"
)

// ensureUnique is the lookup-then-create sequence of the kinds whose names
// Keystone keeps unique (domains; projects, users and groups per domain;
// roles per domain or globally), as docs/identity.md ("Create or adopt")
// describes: the object is looked up by a filtered query first and created
// only when missing. A shared object (the service domain and project, the
// admin, service and member roles that every chart declares) therefore costs
// no failed POST, and a backend that refuses creates (a read-only LDAP
// domain answers 403) still finds what exists. See createUnique for a 409.
//
// created reports whether this call created the object. what names the
// object in errors.
func ensureUnique[T any](ctx context.Context, what string,
	find func(context.Context) (T, bool, error), create func(context.Context) (T, error)) (obj T, created bool, err error) {
	o, found, err := find(ctx)
	if err != nil || found {
		return o, false, err
	}
	return createUnique(ctx, what, find, create)
}

// createUnique creates an object that find did not find. A 409 answered to
// the create (a concurrent writer, or a backend that compares names without
// case) is resolved by looking the object up again.
func createUnique[T any](ctx context.Context, what string,
	find func(context.Context) (T, bool, error), create func(context.Context) (T, error)) (obj T, created bool, err error) {
	o, err := create(ctx)
	if err == nil {
		return o, true, nil
	}
	if !keystone.IsConflict(err) {
		return o, false, fmt.Errorf("create %s: %w", what, err)
	}
	o, found, err := find(ctx)
	if err != nil {
		return o, false, err
	}
	if !found {
		return o, false, fmt.Errorf("create %s: Keystone reports a conflict, but no such object is found", what)
	}
	return o, false, nil
}
