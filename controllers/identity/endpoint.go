package identity

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/endpoints"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/regions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// endpointActuator reconciles Endpoint: the region (created when missing),
// then per interface GET /v3/endpoints?service_id=&region_id= (disabled
// endpoints included), POST when none, PATCH the URL in place when it
// differs. Duplicates are adopted by lowest ID and reported, never deleted.
type endpointActuator struct{ lookups }

var _ actuator[*kv1.Endpoint] = endpointActuator{}

func (endpointActuator) kind() string             { return "Endpoint" }
func (endpointActuator) spec(o *kv1.Endpoint) any { return o.Spec }
func (endpointActuator) inputs(context.Context, client.Reader, *kv1.Endpoint) (map[string]string, error) {
	return nil, nil
}

// interfaces lists the interfaces the spec publishes, in a fixed order, with their URLs.
func interfaces(u kv1.EndpointURLs) [][2]string {
	var out [][2]string
	for _, p := range [][2]string{{"admin", u.Admin}, {"internal", u.Internal}, {"public", u.Public}} {
		if p[1] != "" {
			out = append(out, p)
		}
	}
	return out
}

// endpointPlan is what to do for one interface.
type endpointPlan struct {
	adopt      *endpoints.Endpoint // nil: create
	update     endpointUpdate      // for adopt
	needUpdate bool
	duplicates []string // IDs besides the adopted one, ascending
}

// planEndpoint chooses, among the endpoints Keystone holds for one service,
// region and interface, the one to adopt (lowest ID) and what to patch.
func planEndpoint(found []endpoints.Endpoint, url string, wantEnabled bool) endpointPlan {
	if len(found) == 0 {
		return endpointPlan{}
	}
	sorted := append([]endpoints.Endpoint(nil), found...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	p := endpointPlan{adopt: &sorted[0]}
	for _, d := range sorted[1:] {
		p.duplicates = append(p.duplicates, d.ID)
	}
	if sorted[0].URL != url {
		p.update.URL, p.needUpdate = url, true
	}
	if sorted[0].Enabled != wantEnabled {
		p.update.Enabled, p.needUpdate = ptr(wantEnabled), true
	}
	return p
}

// endpointCreate sends region_id: gophercloud's CreateOpts only sends the
// deprecated region field
// (github.com/gophercloud/gophercloud/v2 openstack/identity/v3/endpoints),
// and Keystone auto-creates a missing region only for region.
type endpointCreate struct {
	Interface, URL, ServiceID, RegionID string
	Enabled                             bool
}

func (o endpointCreate) ToEndpointCreateMap() (map[string]any, error) {
	return map[string]any{"endpoint": map[string]any{"interface": o.Interface, "url": o.URL,
		"service_id": o.ServiceID, "region_id": o.RegionID, "enabled": o.Enabled}}, nil
}

// endpointUpdate patches url and/or enabled only.
type endpointUpdate struct {
	URL     string
	Enabled *bool
}

func (o endpointUpdate) ToEndpointUpdateMap() (map[string]any, error) {
	m := map[string]any{}
	if o.URL != "" {
		m["url"] = o.URL
	}
	if o.Enabled != nil {
		m["enabled"] = *o.Enabled
	}
	return map[string]any{"endpoint": m}, nil
}

func (a endpointActuator) ensureRegion(ctx context.Context, id string) (bool, error) {
	_, err := regions.Get(ctx, a.c, id).Extract()
	if err == nil {
		return false, nil
	}
	if !keystone.IsNotFound(err) {
		return false, fmt.Errorf("get region %q: %w", id, err)
	}
	if _, err := regions.Create(ctx, a.c, regions.CreateOpts{ID: id}).Extract(); err != nil && !keystone.IsConflict(err) {
		return false, fmt.Errorf("create region %q: %w", id, err)
	}
	return true, nil
}

func (a endpointActuator) apply(ctx context.Context, o *kv1.Endpoint, _ applyInput) (outcome, error) {
	svcs, err := a.findServices(ctx, o.Spec.Service.Name, o.Spec.Service.Type)
	if err != nil {
		return outcome{}, err
	}
	if len(svcs) == 0 {
		return outcome{}, &missingError{"service", fmt.Sprintf("%q of type %q", o.Spec.Service.Name, o.Spec.Service.Type)}
	}
	svc := svcs[0]
	var out outcome
	created, err := a.ensureRegion(ctx, o.Spec.Region)
	if err != nil {
		return outcome{}, err
	}
	if created {
		out.changes = append(out.changes, "created region "+o.Spec.Region)
	}
	pages, err := endpoints.List(a.c, endpoints.ListOpts{ServiceID: svc.ID, RegionID: o.Spec.Region}).AllPages(ctx)
	if err != nil {
		return outcome{}, fmt.Errorf("list endpoints: %w", err)
	}
	all, err := endpoints.ExtractEndpoints(pages)
	if err != nil {
		return outcome{}, err
	}
	byIface := map[string][]endpoints.Endpoint{}
	for _, e := range all {
		if e.ServiceID == svc.ID && (e.RegionID == o.Spec.Region || (e.RegionID == "" && e.Region == o.Spec.Region)) {
			byIface[string(e.Availability)] = append(byIface[string(e.Availability)], e)
		}
	}
	want := enabled(o.Spec.Enabled)
	var ids kv1.EndpointIDs
	var dupNotes, published []string
	for _, iu := range interfaces(o.Spec.URLs) {
		iface, url := iu[0], iu[1]
		p := planEndpoint(byIface[iface], url, want)
		var id string
		switch {
		case p.adopt == nil:
			e, err := endpoints.Create(ctx, a.c, endpointCreate{Interface: iface, URL: url, ServiceID: svc.ID,
				RegionID: o.Spec.Region, Enabled: want}).Extract()
			if err != nil {
				return outcome{}, fmt.Errorf("create %s endpoint: %w", iface, err)
			}
			id = e.ID
			out.changes = append(out.changes, fmt.Sprintf("created %s endpoint %s", iface, id))
		case p.needUpdate:
			id = p.adopt.ID
			if _, err := endpoints.Update(ctx, a.c, id, p.update).Extract(); err != nil {
				return outcome{}, fmt.Errorf("update %s endpoint %s: %w", iface, id, err)
			}
			out.changes = append(out.changes, updated(fmt.Sprintf("%s endpoint %s", iface, id), fieldsOf(p.update.ToEndpointUpdateMap())))
		default:
			id = p.adopt.ID
		}
		if len(p.duplicates) > 0 {
			dupNotes = append(dupNotes, fmt.Sprintf("%s: %s", iface, strings.Join(p.duplicates, ", ")))
		}
		published = append(published, iface)
		switch iface {
		case "admin":
			ids.Admin = id
		case "internal":
			ids.Internal = id
		case "public":
			ids.Public = id
		}
	}
	o.Status.EndpointIDs = ids
	out.message = fmt.Sprintf("%s endpoints of %s (%s) in %s", strings.Join(published, ", "),
		svc.Name, svc.Type, o.Spec.Region)
	if len(svcs) > 1 {
		out.message += fmt.Sprintf(" (service %s adopted by lowest ID)", svc.ID)
	}
	if len(dupNotes) > 0 {
		out.message += "; duplicate endpoints not deleted: " + strings.Join(dupNotes, "; ")
	}
	return out, nil
}

// remove deletes the endpoints this resource adopted or created (never the
// duplicates it reported); the region stays.
func (a endpointActuator) remove(ctx context.Context, o *kv1.Endpoint) error {
	for _, id := range []string{o.Status.EndpointIDs.Admin, o.Status.EndpointIDs.Internal, o.Status.EndpointIDs.Public} {
		if id == "" {
			continue
		}
		if err := endpoints.Delete(ctx, a.c, id).ExtractErr(); err != nil && !keystone.IsNotFound(err) {
			return fmt.Errorf("delete endpoint %s: %w", id, err)
		}
	}
	return nil
}
