package identity

import (
	"context"
	"fmt"

	"github.com/c5c3/orderhub/internal/keystone"
)

// createUnique creates an object and, when Keystone refuses, adopts the one
// that is there (docs/identity.md, "Create or adopt"):
//
//   - 409 Conflict: the name is taken (a shared object every chart declares,
//     a concurrent writer, or a backend that compares names without case); the
//     object is looked up with find and adopted, created false;
//   - 403 Forbidden: a backend that refuses creates (a read-only LDAP domain);
//     an existing object is adopted the same way, else the 403 is returned;
//   - any other error is returned, naming what.
func createUnique[T any](ctx context.Context, what string,
	find func(context.Context) (T, bool, error), create func(context.Context) (T, error)) (obj T, created bool, err error) {
	o, err := create(ctx)
	if err == nil {
		return o, true, nil
	}
	conflict := keystone.IsConflict(err)
	if !conflict && !keystone.IsForbidden(err) {
		return o, false, fmt.Errorf("create %s: %w", what, err)
	}
	createErr := err
	o, found, err := find(ctx)
	switch {
	case err != nil:
		return o, false, err
	case found:
		return o, false, nil
	case conflict:
		return o, false, fmt.Errorf("create %s: Keystone reports a conflict, but no such object is found", what)
	}
	return o, false, fmt.Errorf("create %s: %w", what, createErr)
}
