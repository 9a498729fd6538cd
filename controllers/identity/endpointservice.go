package identity

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// declaredServicesInput is the input naming the service IDs that Service
// resources record for an Endpoint's spec.service (comma-separated,
// ascending; present and empty when such a resource records none yet;
// absent when no Service resource declares the service).
const declaredServicesInput = "declaredServiceIDs"

// inputs reads, from the controller's cache, the Service resources in the
// Endpoint's namespace that declare its spec.service (same name, type and
// keystoneRef, not being deleted) and the IDs they record. Folded into the
// desired-state hash, a Service re-created under a new ID re-applies the
// Endpoint.
func (endpointActuator) inputs(ctx context.Context, c client.Reader, o *kv1.Endpoint) (map[string]string, error) {
	var list kv1.ServiceList
	if err := c.List(ctx, &list, client.InNamespace(o.Namespace)); err != nil {
		return nil, fmt.Errorf("list Service resources: %w", err)
	}
	declared := false
	var ids []string
	for _, s := range list.Items {
		if s.Spec.Name != o.Spec.Service.Name || s.Spec.Type != o.Spec.Service.Type ||
			!s.DeletionTimestamp.IsZero() || refName(s.Spec.KeystoneRef) != refName(o.Spec.KeystoneRef) {
			continue
		}
		declared = true
		if s.Status.ServiceID != "" {
			ids = append(ids, s.Status.ServiceID)
		}
	}
	if !declared {
		return nil, nil
	}
	slices.Sort(ids)
	return map[string]string{declaredServicesInput: strings.Join(ids, ",")}, nil
}

func refName(r *kv1.KeystoneRef) string {
	if r == nil {
		return ""
	}
	return r.Name
}

// endpointService chooses the service an Endpoint publishes under among
// those Keystone holds with spec.service's name and type (pickDuplicate):
// when a Service resource declares it, only one such a resource records
// (a foreign duplicate is never used; none yet is a *missingError, so the
// Endpoint waits for the Service); otherwise the one status.serviceID
// records, else the lowest ID. others are the IDs not used.
func endpointService(svcs []services.Service, o *kv1.Endpoint, values map[string]string) (services.Service, []string, error) {
	declared, isDeclared := values[declaredServicesInput]
	var pick string
	var ok bool
	var others []string
	if isDeclared {
		ids := strings.Split(declared, ",")
		pick, ok, others = pickDuplicate(serviceIDs(svcs), "", func(id string) bool { return slices.Contains(ids, id) }, false)
	} else {
		pick, ok, others = pickDuplicate(serviceIDs(svcs), o.Status.ServiceID, nil, true)
	}
	i := slices.IndexFunc(svcs, func(v services.Service) bool { return v.ID == pick })
	if ok && i >= 0 {
		return svcs[i], others, nil
	}
	what := fmt.Sprintf("%q of type %q", o.Spec.Service.Name, o.Spec.Service.Type)
	if isDeclared && len(others) > 0 {
		what += fmt.Sprintf(" as its Service resource records it (%s found, made outside, not used)", strings.Join(others, ", "))
	}
	return services.Service{}, nil, &missingError{"service", what}
}
