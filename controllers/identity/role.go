package identity

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// roleActuator reconciles Role: GET|POST /v3/roles, PATCH /v3/roles/{id}.
type roleActuator struct{ lookups }

var _ actuator[*kv1.Role] = roleActuator{}

func (roleActuator) kind() string         { return "Role" }
func (roleActuator) spec(o *kv1.Role) any { return o.Spec }
func (roleActuator) inputs(context.Context, client.Reader, *kv1.Role) (map[string]string, error) {
	return nil, nil
}

func roleWhere(spec kv1.RoleSpec) string {
	if spec.Domain == "" {
		return fmt.Sprintf("role %s", spec.Name)
	}
	return fmt.Sprintf("role %s in domain %s", spec.Name, spec.Domain)
}

func (a roleActuator) apply(ctx context.Context, o *kv1.Role, _ applyInput) (outcome, error) {
	did := ""
	if o.Spec.Domain != "" {
		var err error
		if did, err = a.domainID(ctx, o.Spec.Domain); err != nil {
			return outcome{}, err
		}
	}
	where := roleWhere(o.Spec)
	r, created, err := ensureUnique(ctx, where,
		func(ctx context.Context) (roles.Role, bool, error) { return a.findRole(ctx, o.Spec.Name, did) },
		func(ctx context.Context) (roles.Role, error) {
			r, err := roles.Create(ctx, a.c, roles.CreateOpts{Name: o.Spec.Name, DomainID: did, Description: o.Spec.Description}).Extract()
			if r == nil {
				return roles.Role{}, err
			}
			return *r, err
		})
	if err != nil {
		return outcome{}, err
	}
	a.remember("role", did, o.Spec.Name, r.ID)
	if created {
		o.Status.RoleID = r.ID
		return changed("created " + where), nil
	}
	o.Status.RoleID = r.ID
	if o.Spec.Description != "" && o.Spec.Description != r.Description {
		if _, err := roles.Update(ctx, a.c, r.ID, roles.UpdateOpts{Description: ptr(o.Spec.Description)}).Extract(); err != nil {
			return outcome{}, fmt.Errorf("update %s: %w", where, err)
		}
		return changed(updated(where, "description")), nil
	}
	return outcome{message: where + " is up to date"}, nil
}

func (a roleActuator) remove(ctx context.Context, o *kv1.Role) error {
	id := o.Status.RoleID
	if id == "" {
		var err error
		if id, err = a.roleID(ctx, o.Spec.Name, o.Spec.Domain); err != nil {
			return err
		}
	}
	if err := roles.Delete(ctx, a.c, id).ExtractErr(); err != nil && !keystone.IsNotFound(err) {
		return fmt.Errorf("delete role %q: %w", o.Spec.Name, err)
	}
	if o.Spec.Domain == "" {
		a.forget("role", "", o.Spec.Name)
	} else {
		a.forgetIn(ctx, "role", o.Spec.Domain, o.Spec.Name)
	}
	return nil
}
