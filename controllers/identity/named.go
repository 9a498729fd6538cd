package identity

import (
	"context"
	"fmt"
	"strings"

	"github.com/c5c3/orderhub/internal/keystone"
)

// The shared apply of the kinds whose Keystone object is a name with a
// description, and for some an enabled flag and a type: Domain, Project,
// Service, Group and Role. Each kind supplies its calls as a namedKind.

// state is what the shared apply compares of a Keystone object.
type state struct {
	name, typ, description string
	enabled                bool
}

// want is what a spec declares of its Keystone object. typ is compared only
// when the kind has one (hasType); enabled only when it has the flag
// (hasEnabled; nil means true).
type want struct {
	name, typ, description string
	enabled                *bool
	hasType, hasEnabled    bool
}

// patch is the PATCH body of the shared kinds; nil fields are not sent.
type patch struct {
	name, typ, description *string
	enabled                *bool
}

// fields names the fields p sets, in Keystone's spelling and sorted, as
// fieldsOf does for a request body.
func (p patch) fields() string {
	var fs []string
	if p.description != nil {
		fs = append(fs, "description")
	}
	if p.enabled != nil {
		fs = append(fs, "enabled")
	}
	if p.name != nil {
		fs = append(fs, "name")
	}
	if p.typ != nil {
		fs = append(fs, "type")
	}
	return strings.Join(fs, ", ")
}

// diff is the PATCH that makes observed match w; ok is false when nothing
// differs. An empty description leaves Keystone's as it is. A name that
// differs only in letter case is not a rename (a case-insensitive backend
// finds the object under either spelling; keystone.NamesEqual).
func diff(w want, observed state) (p patch, ok bool) {
	if !keystone.NamesEqual(w.name, observed.name) {
		p.name, ok = ptr(w.name), true
	}
	if w.hasType && w.typ != observed.typ {
		p.typ, ok = ptr(w.typ), true
	}
	if w.description != "" && w.description != observed.description {
		p.description, ok = ptr(w.description), true
	}
	if v := enabled(w.enabled); w.hasEnabled && v != observed.enabled {
		p.enabled, ok = ptr(v), true
	}
	return p, ok
}

// namedKind is one kind's Keystone calls for applyNamed.
type namedKind[K any] struct {
	tracking[K]
	// state reads what diff compares.
	state func(K) state
	// update sends p to the object with ID id.
	update func(ctx context.Context, id string, p patch) error
	// record writes the ID into the resource's status.
	record func(id string)
	// renamed is called after a rename from the old name (optional).
	renamed func(old, id string)
	// note is appended to the Ready message (duplicates left alone).
	note func() string
}

// applyNamed makes Keystone match w for one resource: ensureTracked finds,
// follows or creates the object, its ID is recorded, and a PATCH sends what
// diff finds different (the name too: a rename in place).
func applyNamed[K any](ctx context.Context, k namedKind[K], w want) (outcome, error) {
	o, created, err := ensureTracked(ctx, k.tracking)
	if err != nil {
		return outcome{}, err
	}
	id := k.id(o)
	k.record(id)
	note := ""
	if k.note != nil {
		note = k.note()
	}
	if created {
		out := changed("created " + k.what)
		out.message += note
		return out, nil
	}
	s := k.state(o)
	p, ok := diff(w, s)
	if !ok {
		return outcome{message: k.what + " is up to date" + note}, nil
	}
	if err := k.update(ctx, id, p); err != nil {
		return outcome{}, fmt.Errorf("update %s: %w", k.what, err)
	}
	msg := updated(k.what, p.fields())
	if p.name != nil || p.typ != nil {
		msg += fmt.Sprintf(", was %s", renamedFrom(s, p))
		if k.renamed != nil {
			k.renamed(s.name, id)
		}
	}
	out := changed(msg)
	out.message += note
	return out, nil
}

// renamedFrom names what a rename changed from ("name \"old\"").
func renamedFrom(s state, p patch) string {
	var was []string
	if p.name != nil {
		was = append(was, fmt.Sprintf("name %q", s.name))
	}
	if p.typ != nil {
		was = append(was, fmt.Sprintf("type %q", s.typ))
	}
	return strings.Join(was, ", ")
}

// removeTracked deletes the object whose ID status records or, when none is
// recorded, the one lookup finds; an object already gone counts as success.
func removeTracked(ctx context.Context, what, recorded string,
	lookup func(context.Context) (string, bool, error), del func(context.Context, string) error) error {
	id := recorded
	if id == "" {
		found, ok, err := lookup(ctx)
		if err != nil || !ok {
			return err
		}
		id = found
	}
	if err := del(ctx, id); err != nil && !keystone.IsNotFound(err) {
		return fmt.Errorf("delete %s: %w", what, err)
	}
	return nil
}

// getFound maps a GET by ID to ensureTracked's get: a 404 is not found.
func getFound[K any](r *K, err error) (K, bool, error) {
	var zero K
	if err != nil {
		if keystone.IsNotFound(err) {
			return zero, false, nil
		}
		return zero, false, err
	}
	return *r, true, nil
}

// created1 adapts a gophercloud Create result to ensureTracked's create.
func created1[K any](r *K, err error) (K, error) {
	if r == nil {
		var zero K
		return zero, err
	}
	return *r, err
}
