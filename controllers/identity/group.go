package identity

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// groupActuator reconciles Group: GET|POST /v3/groups, GET|PATCH
// /v3/groups/{id} (applyNamed).
type groupActuator struct {
	lookups
	specKind[*kv1.Group]
}

var _ actuator[*kv1.Group] = groupActuator{}

func (a groupActuator) apply(ctx context.Context, o *kv1.Group, in applyInput) (outcome, error) {
	s := o.Spec
	did, err := a.domainID(ctx, s.Domain)
	if err != nil {
		return outcome{}, err
	}
	return applyNamed(ctx, namedKind[groups.Group]{
		tracking: tracking[groups.Group]{
			what:     fmt.Sprintf("group %s in domain %s", s.Name, displayDomain(s.Domain)),
			recorded: o.Status.GroupID, shared: in.shared, unique: true,
			find: func(ctx context.Context) (groups.Group, bool, error) { return a.findGroup(ctx, s.Name, did) },
			get: func(ctx context.Context, id string) (groups.Group, bool, error) {
				g, found, err := getFound(groups.Get(ctx, a.c, id).Extract())
				return g, found && g.DomainID == did, err
			},
			create: func(ctx context.Context) (groups.Group, error) {
				return created1(groups.Create(ctx, a.c, groups.CreateOpts{Name: s.Name, DomainID: did, Description: s.Description}).Extract())
			},
			id:   func(g groups.Group) string { return g.ID },
			name: func(g groups.Group) string { return g.Name },
		},
		state: func(g groups.Group) state { return state{name: g.Name, description: g.Description} },
		update: func(ctx context.Context, id string, p patch) error {
			_, err := groups.Update(ctx, a.c, id, groups.UpdateOpts{Name: deref(p.name), Description: p.description}).Extract()
			return err
		},
		record:  func(id string) { o.Status.GroupID = id; a.remember("group", did, s.Name, id) },
		renamed: func(old, _ string) { a.forget("group", did, old) },
	}, want{name: s.Name, description: s.Description})
}

func (a groupActuator) remove(ctx context.Context, o *kv1.Group) error {
	err := removeTracked(ctx, fmt.Sprintf("group %q", o.Spec.Name), o.Status.GroupID,
		func(ctx context.Context) (string, bool, error) {
			id, err := a.groupID(ctx, o.Spec.Name, o.Spec.Domain)
			return id, err == nil, err
		},
		func(ctx context.Context, id string) error { return groups.Delete(ctx, a.c, id).ExtractErr() })
	if err == nil {
		a.forgetIn(ctx, "group", o.Spec.Domain, o.Spec.Name)
	}
	return err
}
