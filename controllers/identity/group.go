package identity

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// groupActuator reconciles Group: GET|POST /v3/groups, PATCH /v3/groups/{id}.
type groupActuator struct{ lookups }

var _ actuator[*kv1.Group] = groupActuator{}

func (groupActuator) kind() string          { return "Group" }
func (groupActuator) spec(o *kv1.Group) any { return o.Spec }
func (groupActuator) inputs(context.Context, client.Reader, *kv1.Group) (map[string]string, error) {
	return nil, nil
}

func (a groupActuator) apply(ctx context.Context, o *kv1.Group, _ applyInput) (outcome, error) {
	did, err := a.domainID(ctx, o.Spec.Domain)
	if err != nil {
		return outcome{}, err
	}
	where := fmt.Sprintf("group %s in domain %s", o.Spec.Name, displayDomain(o.Spec.Domain))
	g, created, err := ensureUnique(ctx, where,
		func(ctx context.Context) (groups.Group, bool, error) { return a.findGroup(ctx, o.Spec.Name, did) },
		func(ctx context.Context) (groups.Group, error) {
			r, err := groups.Create(ctx, a.c, groups.CreateOpts{Name: o.Spec.Name, DomainID: did, Description: o.Spec.Description}).Extract()
			if r == nil {
				return groups.Group{}, err
			}
			return *r, err
		})
	if err != nil {
		return outcome{}, err
	}
	a.remember("group", did, o.Spec.Name, g.ID)
	if created {
		o.Status.GroupID = g.ID
		return changed("created " + where), nil
	}
	o.Status.GroupID = g.ID
	if o.Spec.Description != "" && o.Spec.Description != g.Description {
		if _, err := groups.Update(ctx, a.c, g.ID, groups.UpdateOpts{Description: ptr(o.Spec.Description)}).Extract(); err != nil {
			return outcome{}, fmt.Errorf("update %s: %w", where, err)
		}
		return changed(updated(where, "description")), nil
	}
	return outcome{message: where + " is up to date"}, nil
}

func (a groupActuator) remove(ctx context.Context, o *kv1.Group) error {
	id := o.Status.GroupID
	if id == "" {
		var err error
		if id, err = a.groupID(ctx, o.Spec.Name, o.Spec.Domain); err != nil {
			return err
		}
	}
	if err := groups.Delete(ctx, a.c, id).ExtractErr(); err != nil && !keystone.IsNotFound(err) {
		return fmt.Errorf("delete group %q: %w", o.Spec.Name, err)
	}
	a.forgetIn(ctx, "group", o.Spec.Domain, o.Spec.Name)
	return nil
}
