package identity

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/endpoints"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/regions"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// endpointActuator reconciles Endpoint: the service (endpointService), the
// region (created when missing), then per interface GET /v3/endpoints?service_id=&region_id= (disabled
// endpoints included), POST when none, PATCH the URL in place when it
// differs. Duplicates are adopted by lowest ID and reported, never deleted.
// A recorded endpoint the spec no longer declares is deleted when this
// resource created it, released otherwise (dropStale).
type endpointActuator struct {
	lookups
}

var _ actuator[*kv1.Endpoint] = endpointActuator{}

func (endpointActuator) kind() string             { return "Endpoint" }
func (endpointActuator) spec(o *kv1.Endpoint) any { return o.Spec }

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
// region and interface, the one to adopt and what to patch: the recorded
// one (status.endpointIDs) when it is among them, else the lowest ID.
func planEndpoint(found []endpoints.Endpoint, recorded, url string, wantEnabled bool) endpointPlan {
	if len(found) == 0 {
		return endpointPlan{}
	}
	sorted := append([]endpoints.Endpoint(nil), found...)
	sort.Slice(sorted, func(i, j int) bool {
		if (sorted[i].ID == recorded) != (sorted[j].ID == recorded) {
			return sorted[i].ID == recorded
		}
		return sorted[i].ID < sorted[j].ID
	})
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

func (a endpointActuator) apply(ctx context.Context, o *kv1.Endpoint, in applyInput) (outcome, error) {
	svcs, err := a.findServices(ctx, o.Spec.Service.Name, o.Spec.Service.Type)
	if err != nil {
		return outcome{}, err
	}
	svc, otherSvcs, err := endpointService(svcs, o, in.values)
	if err != nil {
		return outcome{}, err
	}
	o.Status.ServiceID = svc.ID
	var out outcome
	created, err := a.ensureRegion(ctx, o.Spec.Region)
	if err != nil {
		return outcome{}, err
	}
	if created {
		out.changes = append(out.changes, "created region "+o.Spec.Region)
	}
	byIface, listed, err := a.listEndpoints(ctx, svc.ID, o.Spec.Region)
	if err != nil {
		return outcome{}, err
	}
	released, err := a.dropStale(ctx, &o.Status, o.Spec.URLs, listed, in.shared, &out)
	if err != nil {
		return out, err
	}
	var dupNotes, published []string
	for _, iu := range interfaces(o.Spec.URLs) {
		dups, err := a.applyInterface(ctx, o, svc.ID, iu[0], iu[1], byIface[iu[0]], &out)
		if err != nil {
			return out, err
		}
		if len(dups) > 0 {
			dupNotes = append(dupNotes, fmt.Sprintf("%s: %s", iu[0], strings.Join(dups, ", ")))
		}
		published = append(published, iu[0])
	}
	out.message = fmt.Sprintf("%s endpoints of %s (%s) in %s", strings.Join(published, ", "),
		svc.Name, svc.Type, o.Spec.Region)
	out.message += duplicateNote("services", otherSvcs)
	if len(dupNotes) > 0 {
		out.message += "; duplicate endpoints not deleted: " + strings.Join(dupNotes, "; ")
	}
	if len(released) > 0 {
		out.message += "; no longer tracked (adopted, not created here, so left in the catalog): " + strings.Join(released, ", ")
	}
	return out, nil
}

// listEndpoints returns the endpoints of service svcID in region, by interface,
// and the set of their IDs.
func (a endpointActuator) listEndpoints(ctx context.Context, svcID, region string) (map[string][]endpoints.Endpoint, map[string]bool, error) {
	pages, err := endpoints.List(a.c, endpoints.ListOpts{ServiceID: svcID, RegionID: region}).AllPages(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("list endpoints: %w", err)
	}
	all, err := endpoints.ExtractEndpoints(pages)
	if err != nil {
		return nil, nil, err
	}
	byIface := map[string][]endpoints.Endpoint{}
	listed := map[string]bool{}
	for _, e := range all {
		if e.ServiceID == svcID && (e.RegionID == region || (e.RegionID == "" && e.Region == region)) {
			byIface[string(e.Availability)] = append(byIface[string(e.Availability)], e)
			listed[e.ID] = true
		}
	}
	return byIface, listed, nil
}

// applyInterface creates, updates or adopts the endpoint of one interface as
// planEndpoint decides, records its ID in status at once (a later failure in
// the pass loses no ID), and returns the IDs of duplicates left alone.
func (a endpointActuator) applyInterface(ctx context.Context, o *kv1.Endpoint, svcID, iface, url string,
	listed []endpoints.Endpoint, out *outcome) ([]string, error) {
	st := &o.Status
	recorded := endpointID(st.EndpointIDs, iface)
	p := planEndpoint(listed, recorded, url, enabled(o.Spec.Enabled))
	var id string
	switch {
	case p.adopt == nil:
		e, err := endpoints.Create(ctx, a.c, endpointCreate{Interface: iface, URL: url, ServiceID: svcID,
			RegionID: o.Spec.Region, Enabled: enabled(o.Spec.Enabled)}).Extract()
		if err != nil {
			return nil, fmt.Errorf("create %s endpoint: %w", iface, err)
		}
		id = e.ID
		st.CreatedInterfaces = setMember(st.CreatedInterfaces, iface, true)
		out.changes = append(out.changes, fmt.Sprintf("created %s endpoint %s", iface, id))
	case p.needUpdate:
		id = p.adopt.ID
		if _, err := endpoints.Update(ctx, a.c, id, p.update).Extract(); err != nil {
			return nil, fmt.Errorf("update %s endpoint %s: %w", iface, id, err)
		}
		out.changes = append(out.changes, updated(fmt.Sprintf("%s endpoint %s", iface, id), fieldsOf(p.update.ToEndpointUpdateMap())))
	default:
		id = p.adopt.ID
	}
	if id != recorded && p.adopt != nil {
		// Adopted, not created: this resource did not create that one.
		st.CreatedInterfaces = setMember(st.CreatedInterfaces, iface, false)
	}
	setEndpointID(&st.EndpointIDs, iface, id)
	return p.duplicates, nil
}

// dropStale handles the endpoints the status records that the spec no longer
// declares where they are: an interface removed from spec.urls, or an
// endpoint set moved to another service or region (its recorded endpoint is
// not among those listed for the current one). One this resource created is
// deleted from the catalog, unless another resource records it too; one it
// adopted is released. Either way its ID leaves the status, only once
// handled, so a failed delete is retried (docs/identity.md, "Edits").
// released names the released ones ("admin endpoint <id>").
func (a endpointActuator) dropStale(ctx context.Context, st *kv1.EndpointStatus, urls kv1.EndpointURLs,
	listed map[string]bool, shared func(string) (bool, error), out *outcome) (released []string, err error) {
	declared := map[string]bool{}
	for _, iu := range interfaces(urls) {
		declared[iu[0]] = true
	}
	for _, iface := range []string{"admin", "internal", "public"} {
		id := endpointID(st.EndpointIDs, iface)
		if id == "" || (declared[iface] && listed[id]) {
			continue
		}
		why := "its interface was removed from spec.urls"
		if declared[iface] {
			why = "it is not under the declared service and region"
		}
		del := slices.Contains(st.CreatedInterfaces, iface)
		if del && shared != nil {
			isShared, err := shared(id)
			if err != nil {
				return released, err
			}
			del = !isShared
		}
		if del {
			if err := endpoints.Delete(ctx, a.c, id).ExtractErr(); err != nil && !keystone.IsNotFound(err) {
				return released, fmt.Errorf("delete %s endpoint %s (%s): %w", iface, id, why, err)
			}
			out.changes = append(out.changes, fmt.Sprintf("deleted %s endpoint %s: %s", iface, id, why))
		} else {
			released = append(released, fmt.Sprintf("%s endpoint %s", iface, id))
		}
		setEndpointID(&st.EndpointIDs, iface, "")
		st.CreatedInterfaces = setMember(st.CreatedInterfaces, iface, false)
	}
	return released, nil
}

// endpointID is the ID ids records for iface.
func endpointID(ids kv1.EndpointIDs, iface string) string {
	switch iface {
	case "admin":
		return ids.Admin
	case "internal":
		return ids.Internal
	case "public":
		return ids.Public
	}
	return ""
}

// setEndpointID records id for iface.
func setEndpointID(ids *kv1.EndpointIDs, iface, id string) {
	switch iface {
	case "admin":
		ids.Admin = id
	case "internal":
		ids.Internal = id
	case "public":
		ids.Public = id
	}
}

// setMember adds (in) or removes v from the sorted set s; nil when empty.
func setMember(s []string, v string, in bool) []string {
	out := slices.DeleteFunc(slices.Clone(s), func(x string) bool { return x == v })
	if in {
		out = append(out, v)
		slices.Sort(out)
	}
	if len(out) == 0 {
		return nil
	}
	return out
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
