package identity

import (
	"context"
	"fmt"
	"slices"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// serviceActuator reconciles Service: GET|POST /v3/services, GET|PATCH
// /v3/services/{id} (applyNamed). Unlike ks-service.sh it applies a changed
// description or enabled flag to an existing service; a changed name or type
// updates it in place.
type serviceActuator struct {
	lookups
	specKind[*kv1.Service]
}

var _ actuator[*kv1.Service] = serviceActuator{}

func (a serviceActuator) apply(ctx context.Context, o *kv1.Service, in applyInput) (outcome, error) {
	s := o.Spec
	var dups []string
	return applyNamed(ctx, namedKind[services.Service]{
		tracking: tracking[services.Service]{
			what: fmt.Sprintf("service %s (%s)", s.Name, s.Type), recorded: o.Status.ServiceID, shared: in.shared,
			// Service names are not unique: pickDuplicate chooses.
			find: func(ctx context.Context) (services.Service, bool, error) {
				found, err := a.findServices(ctx, s.Name, s.Type)
				if err != nil {
					return services.Service{}, false, err
				}
				var pick string
				var ok bool
				pick, ok, dups = pickDuplicate(serviceIDs(found), o.Status.ServiceID, recordedElsewhere(in.shared), o.Status.ServiceID == "")
				i := slices.IndexFunc(found, func(v services.Service) bool { return v.ID == pick })
				if !ok || i < 0 {
					return services.Service{}, false, nil
				}
				return found[i], true, nil
			},
			get: func(ctx context.Context, id string) (services.Service, bool, error) {
				return getFound(services.Get(ctx, a.c, id).Extract())
			},
			create: func(ctx context.Context) (services.Service, error) {
				return created1(services.Create(ctx, a.c, services.CreateOpts{Name: s.Name, Type: s.Type,
					Description: s.Description, Enabled: ptr(enabled(s.Enabled))}).Extract())
			},
			id:   func(v services.Service) string { return v.ID },
			name: func(v services.Service) string { return v.Name },
		},
		state: func(v services.Service) state {
			return state{name: v.Name, typ: v.Type, description: v.Description, enabled: v.Enabled}
		},
		update: func(ctx context.Context, id string, p patch) error {
			_, err := services.Update(ctx, a.c, id, services.UpdateOpts{Name: p.name, Type: deref(p.typ), Description: p.description, Enabled: p.enabled}).Extract()
			return err
		},
		record: func(id string) { o.Status.ServiceID = id },
		note:   func() string { return duplicateNote("services", dups) },
	}, want{name: s.Name, typ: s.Type, description: s.Description, enabled: s.Enabled, hasType: true, hasEnabled: true})
}

func (a serviceActuator) remove(ctx context.Context, o *kv1.Service) error {
	return removeTracked(ctx, fmt.Sprintf("service %q", o.Spec.Name), o.Status.ServiceID,
		func(ctx context.Context) (string, bool, error) {
			found, err := a.findServices(ctx, o.Spec.Name, o.Spec.Type)
			if err != nil || len(found) == 0 {
				return "", false, err
			}
			return found[0].ID, true, nil
		},
		func(ctx context.Context, id string) error { return services.Delete(ctx, a.c, id).ExtractErr() })
}

// serviceIDs lists the IDs of ss.
func serviceIDs(ss []services.Service) []string {
	ids := make([]string, len(ss))
	for i, v := range ss {
		ids[i] = v.ID
	}
	return ids
}

// recordedElsewhere adapts applyInput.shared to pickDuplicate's ours; an
// error reading the cache counts as not recorded (nil: none is).
func recordedElsewhere(shared func(string) (bool, error)) func(string) bool {
	if shared == nil {
		return nil
	}
	return func(id string) bool {
		ok, err := shared(id)
		return err == nil && ok
	}
}
