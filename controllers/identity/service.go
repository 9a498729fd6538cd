package identity

import (
	"context"
	"fmt"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// serviceActuator reconciles Service: GET|POST /v3/services, PATCH
// /v3/services/{id}. Unlike ks-service.sh it applies a changed description or
// enabled flag to an existing service.
type serviceActuator struct{ lookups }

var _ actuator[*kv1.Service] = serviceActuator{}

func (serviceActuator) kind() string            { return "Service" }
func (serviceActuator) spec(o *kv1.Service) any { return o.Spec }
func (serviceActuator) inputs(context.Context, client.Reader, *kv1.Service) (map[string]string, error) {
	return nil, nil
}

// serviceUpdate is the PATCH that makes observed match spec; ok is false when
// nothing differs. An empty spec description leaves Keystone's as it is.
func serviceUpdate(spec kv1.ServiceSpec, observed services.Service) (services.UpdateOpts, bool) {
	var u services.UpdateOpts
	ok := false
	if spec.Description != "" && spec.Description != observed.Description {
		u.Description, ok = ptr(spec.Description), true
	}
	if want := enabled(spec.Enabled); want != observed.Enabled {
		u.Enabled, ok = ptr(want), true
	}
	return u, ok
}

// duplicateNote names the IDs of duplicates that were found and left alone.
func duplicateNote(what string, ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("; duplicate %s not deleted: %s", what, strings.Join(ids, ", "))
}

func (a serviceActuator) apply(ctx context.Context, o *kv1.Service, _ applyInput) (outcome, error) {
	where := fmt.Sprintf("service %s (%s)", o.Spec.Name, o.Spec.Type)
	found, err := a.findServices(ctx, o.Spec.Name, o.Spec.Type)
	if err != nil {
		return outcome{}, err
	}
	if len(found) == 0 {
		s, err := services.Create(ctx, a.c, services.CreateOpts{Name: o.Spec.Name, Type: o.Spec.Type,
			Description: o.Spec.Description, Enabled: ptr(enabled(o.Spec.Enabled))}).Extract()
		if err != nil {
			return outcome{}, fmt.Errorf("create %s: %w", where, err)
		}
		o.Status.ServiceID = s.ID
		return changed("created " + where), nil
	}
	s := found[0] // lowest ID
	var dups []string
	for _, d := range found[1:] {
		dups = append(dups, d.ID)
	}
	note := duplicateNote("services", dups)
	o.Status.ServiceID = s.ID
	if u, ok := serviceUpdate(o.Spec, s); ok {
		if _, err := services.Update(ctx, a.c, s.ID, u).Extract(); err != nil {
			return outcome{}, fmt.Errorf("update %s: %w", where, err)
		}
		out := changed(updated(where, fieldsOf(u.ToServiceUpdateMap())))
		out.message += note
		return out, nil
	}
	return outcome{message: where + " is up to date" + note}, nil
}

func (a serviceActuator) remove(ctx context.Context, o *kv1.Service) error {
	id := o.Status.ServiceID
	if id == "" {
		found, err := a.findServices(ctx, o.Spec.Name, o.Spec.Type)
		if err != nil || len(found) == 0 {
			return err
		}
		id = found[0].ID
	}
	if err := services.Delete(ctx, a.c, id).ExtractErr(); err != nil && !keystone.IsNotFound(err) {
		return fmt.Errorf("delete service %q: %w", o.Spec.Name, err)
	}
	return nil
}
