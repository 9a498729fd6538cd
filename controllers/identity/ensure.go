package identity

import (
	"context"
	"fmt"

	"github.com/c5c3/orderhub/internal/keystone"
)

// ensureUnique is the create-or-adopt sequence of the kinds whose names
// Keystone keeps unique (domains; projects, users and groups per domain;
// roles per domain or globally), where a second create answers 409 Conflict.
//
// When the resource has no Keystone ID in its status yet (createFirst), the
// object is most likely new, so it is created straight away and looked up
// only on a 409: one request instead of two for a new object. Otherwise it
// is looked up by a filtered query and created only when missing, which is
// how the forced resync re-creates an object deleted out of band. A 409
// answered to a create (a concurrent writer, or a backend that compares names
// without case) is resolved by looking the object up again.
//
// created reports whether this call created the object. what names the
// object in errors.
func ensureUnique[T any](ctx context.Context, what string, createFirst bool,
	find func(context.Context) (T, bool, error), create func(context.Context) (T, error)) (obj T, created bool, err error) {
	if !createFirst {
		o, found, err := find(ctx)
		if err != nil || found {
			return o, false, err
		}
	}
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
