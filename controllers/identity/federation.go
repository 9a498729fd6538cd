package identity

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/c5c3/orderhub/internal/keystone"
)

// The shared apply of the federation kinds (IdentityProvider, Mapping,
// Protocol, ServiceProvider): each is created with PUT under an ID the
// resource chooses, so there is no lookup by name and no ID in status; drift
// is compared field by field and repaired with PATCH (docs/identity.md,
// "Federation").

// fedKind is one federation kind's Keystone calls for applyFederated. O is
// the object as Keystone returns it.
type fedKind[O any] struct {
	// what names the object in messages ("identity provider okta").
	what string
	// create PUTs the object; Keystone answers 409 when it exists.
	create func(context.Context) error
	// get reads the object; found is false on a 404.
	get func(context.Context) (obj O, found bool, err error)
	// diff is the PATCH body of what differs from the spec and the names of
	// its fields; an empty body means up to date. An error is drift PATCH
	// cannot repair.
	diff func(O) (body map[string]any, fields []string, err error)
	// update PATCHes body.
	update func(context.Context, map[string]any) error
}

// applyFederated makes Keystone match the spec. A spec just created or
// changed is PUT first (one request for a new object); a 409 or a resync
// reads the object and PATCHes what differs; a resync that finds it gone
// creates it again.
func applyFederated[O any](ctx context.Context, k fedKind[O], resync bool) (outcome, error) {
	if !resync {
		err := k.create(ctx)
		if err == nil {
			return changed("created " + k.what), nil
		}
		if !keystone.IsConflict(err) {
			return outcome{}, fmt.Errorf("create %s: %w", k.what, err)
		}
	}
	o, found, err := k.get(ctx)
	if err != nil {
		return outcome{}, fmt.Errorf("read %s: %w", k.what, err)
	}
	if !found {
		if err := k.create(ctx); err != nil {
			return outcome{}, fmt.Errorf("create %s: %w", k.what, err)
		}
		return changed("created " + k.what), nil
	}
	body, fields, err := k.diff(o)
	if err != nil {
		return outcome{}, err
	}
	if len(body) == 0 {
		return outcome{message: k.what + " is up to date"}, nil
	}
	if err := k.update(ctx, body); err != nil {
		return outcome{}, fmt.Errorf("update %s: %w", k.what, err)
	}
	return changed(updated(k.what, strings.Join(fields, ", "))), nil
}

// fedAPI sends the OS-FEDERATION requests gophercloud has no functions for:
// its federation package covers mappings only, not identity providers,
// protocols or service providers, so these go through the same
// ServiceClient (its authentication, retries and error types) as raw
// requests. Each body is wrapped in its member key ("identity_provider").
// The path parts are IDs the CRDs restrict to URL-safe characters.
type fedAPI struct {
	c *gophercloud.ServiceClient
	// member is the key Keystone wraps the object in.
	member string
}

func (a fedAPI) url(parts ...string) string {
	return a.c.ServiceURL(append([]string{"OS-FEDERATION"}, parts...)...)
}

// put creates the object at parts (201).
func (a fedAPI) put(ctx context.Context, body map[string]any, parts ...string) error {
	_, err := a.c.Put(ctx, a.url(parts...), map[string]any{a.member: body}, nil,
		&gophercloud.RequestOpts{OkCodes: []int{201}})
	return err
}

// get decodes the object at parts into into; a 404 is found false.
func (a fedAPI) get(ctx context.Context, into any, parts ...string) (bool, error) {
	var wrapped map[string]json.RawMessage
	if _, err := a.c.Get(ctx, a.url(parts...), &wrapped, nil); err != nil {
		if keystone.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	if err := json.Unmarshal(wrapped[a.member], into); err != nil {
		return false, fmt.Errorf("decode %s: %w", a.member, err)
	}
	return true, nil
}

// patch sends body to the object at parts (200).
func (a fedAPI) patch(ctx context.Context, body map[string]any, parts ...string) error {
	_, err := a.c.Patch(ctx, a.url(parts...), map[string]any{a.member: body}, nil,
		&gophercloud.RequestOpts{OkCodes: []int{200}})
	return err
}

// remove deletes what, the object at parts; one already gone counts as
// success. An error is "delete <what>: ...".
func (a fedAPI) remove(ctx context.Context, what string, parts ...string) error {
	if _, err := a.c.Delete(ctx, a.url(parts...), nil); err != nil && !keystone.IsNotFound(err) {
		return fmt.Errorf("delete %s: %w", what, err)
	}
	return nil
}

// fedObject is the fedKind of what, the object at parts: created with a PUT
// of body, read with a GET into O, updated with a PATCH; diff is the kind's.
func fedObject[O any](a fedAPI, what string, body map[string]any, diff func(O) (map[string]any, []string, error),
	parts ...string) fedKind[O] {
	return fedKind[O]{
		what:   what,
		create: func(ctx context.Context) error { return a.put(ctx, body, parts...) },
		get: func(ctx context.Context) (O, bool, error) {
			var o O
			found, err := a.get(ctx, &o, parts...)
			return o, found, err
		},
		diff:   diff,
		update: func(ctx context.Context, b map[string]any) error { return a.patch(ctx, b, parts...) },
	}
}
