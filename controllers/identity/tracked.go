package identity

import (
	"context"
	"fmt"
)

// tracking is what ensureTracked needs of one kind: how to find the declared
// object by its name, read one by ID, and create one.
type tracking[K any] struct {
	// what names the declared object in messages ("domain svc").
	what string
	// recorded is the Keystone ID the resource's status holds ("" when none).
	recorded string
	// shared reports whether another resource of the kind records id
	// (nil: none does).
	shared func(id string) (bool, error)
	// unique says Keystone keeps the name unique in its scope (domains;
	// projects, users and groups per domain; roles per domain or globally):
	// with no ID recorded, the object is created first and looked up only on
	// a 409 (createUnique). Otherwise (services, endpoints: duplicates
	// allowed) it is looked up first.
	unique bool
	// find looks the declared object up by the spec's name (and scope).
	find func(context.Context) (K, bool, error)
	// get reads the object with an ID; found is false when Keystone has none
	// (404) or it lies outside the declared scope (another domain).
	get func(ctx context.Context, id string) (K, bool, error)
	// create creates the declared object.
	create func(context.Context) (K, error)
	// id and name read a Keystone object's ID and name.
	id, name func(K) string
}

func (t tracking[K]) isShared(id string) (bool, error) {
	if t.shared == nil {
		return false, nil
	}
	return t.shared(id)
}

// ensureTracked finds or creates the object a resource declares, following
// the ID its status records so that an edited name renames the object in
// place rather than leaving it behind (docs/identity.md, "Edits"):
//
//   - no ID recorded, and the name is unique: created first, adopted on a 409
//     (createUnique), so a new object costs one POST;
//   - otherwise the spec's name is looked up first, so a steady state costs
//     one filtered GET;
//   - found, and it is the recorded object (or none is recorded): it is the one;
//   - not found, and the recorded object still exists: it is returned, and
//     the caller's PATCH carries the new name (a rename);
//   - not found otherwise: it is created (createUnique).
//
// A recorded object that another resource also records is never renamed:
// that resource still declares the old name, and the two would rename it
// back and forth. This resource then finds or creates an object under its
// new name, and the old one stays with the other resource.
//
// Found under the new name while the recorded object (tracked by no other
// resource) still exists under another: the two cannot be merged, and
// adopting the found one would leave the recorded one behind untracked, so
// this is an error naming both IDs.
func ensureTracked[K any](ctx context.Context, t tracking[K]) (obj K, created bool, err error) {
	var zero K
	if t.recorded == "" && t.unique {
		return createUnique(ctx, t.what, t.find, t.create)
	}
	o, found, err := t.find(ctx)
	if err != nil {
		return zero, false, err
	}
	if t.recorded == "" || (found && t.id(o) == t.recorded) {
		if found {
			return o, false, nil
		}
		return createUnique(ctx, t.what, t.find, t.create)
	}
	shared, err := t.isShared(t.recorded)
	if err != nil {
		return zero, false, err
	}
	var old K
	exists := false
	if !shared {
		if old, exists, err = t.get(ctx, t.recorded); err != nil {
			return zero, false, fmt.Errorf("read the recorded %s (id %s): %w", t.what, t.recorded, err)
		}
	}
	switch {
	case found && exists:
		return zero, false, fmt.Errorf("%s already exists in Keystone (id %s) besides the object this resource tracks (id %s, named %q): a rename cannot merge them; set the name back, or delete one of the two in Keystone",
			t.what, t.id(o), t.recorded, t.name(old))
	case found:
		return o, false, nil
	case exists:
		return old, false, nil
	}
	return createUnique(ctx, t.what, t.find, t.create)
}
