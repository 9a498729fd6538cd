package identity

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// roleActuator reconciles Role: GET|POST /v3/roles, GET|PATCH /v3/roles/{id}
// (applyNamed).
type roleActuator struct {
	lookups
	specKind[*kv1.Role]
}

var _ actuator[*kv1.Role] = roleActuator{}

func roleWhere(spec kv1.RoleSpec) string {
	if spec.Domain == "" {
		return fmt.Sprintf("role %s", spec.Name)
	}
	return fmt.Sprintf("role %s in domain %s", spec.Name, spec.Domain)
}

func (a roleActuator) apply(ctx context.Context, o *kv1.Role, in applyInput) (outcome, error) {
	s := o.Spec
	did := ""
	if s.Domain != "" {
		var err error
		if did, err = a.domainID(ctx, s.Domain); err != nil {
			return outcome{}, err
		}
	}
	return applyNamed(ctx, namedKind[roles.Role]{
		tracking: tracking[roles.Role]{
			what: roleWhere(s), recorded: o.Status.RoleID, shared: in.shared, unique: true,
			find: func(ctx context.Context) (roles.Role, bool, error) { return a.findRole(ctx, s.Name, did) },
			get: func(ctx context.Context, id string) (roles.Role, bool, error) {
				r, found, err := getFound(roles.Get(ctx, a.c, id).Extract())
				return r, found && r.DomainID == did, err
			},
			create: func(ctx context.Context) (roles.Role, error) {
				return created1(roles.Create(ctx, a.c, roles.CreateOpts{Name: s.Name, DomainID: did, Description: s.Description}).Extract())
			},
			id:   func(r roles.Role) string { return r.ID },
			name: func(r roles.Role) string { return r.Name },
		},
		state: func(r roles.Role) state { return state{name: r.Name, description: r.Description} },
		update: func(ctx context.Context, id string, p patch) error {
			_, err := roles.Update(ctx, a.c, id, roles.UpdateOpts{Name: deref(p.name), Description: p.description}).Extract()
			return err
		},
		record:  func(id string) { o.Status.RoleID = id; a.remember("role", did, s.Name, id) },
		renamed: func(old, _ string) { a.forget("role", did, old) },
	}, want{name: s.Name, description: s.Description})
}

func (a roleActuator) remove(ctx context.Context, o *kv1.Role) error {
	err := removeTracked(ctx, fmt.Sprintf("role %q", o.Spec.Name), o.Status.RoleID,
		func(ctx context.Context) (string, bool, error) {
			id, err := a.roleID(ctx, o.Spec.Name, o.Spec.Domain)
			return id, err == nil, err
		},
		func(ctx context.Context, id string) error { return roles.Delete(ctx, a.c, id).ExtractErr() })
	if err != nil {
		return err
	}
	if o.Spec.Domain == "" {
		a.forget("role", "", o.Spec.Name)
	} else {
		a.forgetIn(ctx, "role", o.Spec.Domain, o.Spec.Name)
	}
	return nil
}
