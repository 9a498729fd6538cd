//go:build integration

package identity

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/endpoints"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// The tests of this file edit every mutable field of each identity kind and
// read Keystone back (docs/identity.md, "Edits"): a changed name renames the
// object in place, through the ID in status, and no old object is left
// behind; the fields Keystone cannot change are refused by the API server.

// edit re-reads obj, applies mutate and updates it, retrying on a conflict
// with the controller's status writes.
func edit[O client.Object](t *testing.T, obj O, mutate func(O)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		mutate(obj)
		return k8s.Update(context.Background(), obj)
	})
	if err != nil {
		t.Fatalf("update %s: %v", obj.GetName(), err)
	}
}

func TestEditDomainRenamesInPlace(t *testing.T) {
	ctx := context.Background()
	old, renamed := uniq(t, "ed-dom"), uniq(t, "ed-dom-renamed")
	d := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: kname(old), Namespace: testNS},
		Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: old, Description: "before"}}
	mustCreate(t, d)
	waitReady(t, d)
	id := d.Status.DomainID
	edit(t, d, func(d *kv1.Domain) { d.Spec.Name, d.Spec.Description, d.Spec.Enabled = renamed, "after", ptr(false) })
	waitReady(t, d)
	got, err := domains.Get(ctx, admin, id).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if d.Status.DomainID != id || got.Name != renamed || got.Description != "after" || got.Enabled {
		t.Errorf("status.domainID %s (was %s), Keystone %+v: want the same domain renamed to %s, description after, disabled", d.Status.DomainID, id, got, renamed)
	}
	if n := len(ksDomainsNamed(t, old)); n != 0 {
		t.Errorf("%d domains still named %s", n, old)
	}
	if n := len(ksDomainsNamed(t, renamed)); n != 1 {
		t.Errorf("%d domains named %s, want 1", n, renamed)
	}
}

func TestEditProjectRenamesInPlace(t *testing.T) {
	ctx := context.Background()
	old, renamed := uniq(t, "ed-proj"), uniq(t, "ed-proj-renamed")
	p := &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: kname(old), Namespace: testNS},
		Spec: kv1.ProjectSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: old, Description: "before"}}
	mustCreate(t, p)
	waitReady(t, p)
	id := p.Status.ProjectID
	edit(t, p, func(p *kv1.Project) { p.Spec.Name, p.Spec.Description, p.Spec.Enabled = renamed, "after", ptr(false) })
	waitReady(t, p)
	got, err := projects.Get(ctx, admin, id).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if p.Status.ProjectID != id || got.Name != renamed || got.Description != "after" || got.Enabled {
		t.Errorf("status.projectID %s (was %s), Keystone %+v: want the same project renamed, description after, disabled", p.Status.ProjectID, id, got)
	}
	for name, want := range map[string]int{old: 0, renamed: 1} {
		if n := len(ksProjectsNamed(t, name)); n != want {
			t.Errorf("%d projects named %s in the default domain, want %d", n, name, want)
		}
	}
}

func TestEditServiceRenamesInPlace(t *testing.T) {
	ctx := context.Background()
	old := uniq(t, "ed-svc")
	s := &kv1.Service{ObjectMeta: metav1.ObjectMeta{Name: kname(old), Namespace: testNS},
		Spec: kv1.ServiceSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: old, Type: old + "-type", Description: "before"}}
	mustCreate(t, s)
	waitReady(t, s)
	id := s.Status.ServiceID
	edit(t, s, func(s *kv1.Service) {
		s.Spec.Name, s.Spec.Type, s.Spec.Description, s.Spec.Enabled = old+"-renamed", old+"-newtype", "after", ptr(false)
	})
	waitReady(t, s)
	got, err := services.Get(ctx, admin, id).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if s.Status.ServiceID != id || got.Name != old+"-renamed" || got.Type != old+"-newtype" || got.Description != "after" || got.Enabled {
		t.Errorf("status.serviceID %s (was %s), Keystone %+v: want the same service with the new name, type and description, disabled", s.Status.ServiceID, id, got)
	}
	pages, err := services.List(admin, services.ListOpts{ServiceType: old + "-type"}).AllPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := services.ExtractServices(pages); len(left) != 0 {
		t.Errorf("services of the old type left: %+v", left)
	}
}

func TestEditGroupRenamesInPlace(t *testing.T) {
	ctx := context.Background()
	old, renamed := uniq(t, "ed-group"), uniq(t, "ed-group-renamed")
	g := &kv1.Group{ObjectMeta: metav1.ObjectMeta{Name: kname(old), Namespace: testNS},
		Spec: kv1.GroupSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: old, Description: "before"}}
	mustCreate(t, g)
	waitReady(t, g)
	id := g.Status.GroupID
	edit(t, g, func(g *kv1.Group) { g.Spec.Name, g.Spec.Description = renamed, "after" })
	waitReady(t, g)
	got, err := groups.Get(ctx, admin, id).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if g.Status.GroupID != id || got.Name != renamed || got.Description != "after" {
		t.Errorf("status.groupID %s (was %s), Keystone %+v: want the same group renamed, description after", g.Status.GroupID, id, got)
	}
	for name, want := range map[string]int{old: 0, renamed: 1} {
		pages, err := groups.List(admin, groups.ListOpts{Name: name, DomainID: keystone.DefaultDomainID}).AllPages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if gs, _ := groups.ExtractGroups(pages); len(gs) != want {
			t.Errorf("%d groups named %s, want %d", len(gs), name, want)
		}
	}
}

// A renamed role keeps its ID, so the grants made with it stay.
func TestEditRoleRenamesInPlace(t *testing.T) {
	ctx := context.Background()
	old, renamed := uniq(t, "ed-role"), uniq(t, "ed-role-renamed")
	r := &kv1.Role{ObjectMeta: metav1.ObjectMeta{Name: kname(old), Namespace: testNS},
		Spec: kv1.RoleSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: old, Description: "before"}}
	mustCreate(t, r)
	waitReady(t, r)
	id := r.Status.RoleID
	edit(t, r, func(r *kv1.Role) { r.Spec.Name, r.Spec.Description = renamed, "after" })
	waitReady(t, r)
	got, err := roles.Get(ctx, admin, id).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if r.Status.RoleID != id || got.Name != renamed || got.Description != "after" {
		t.Errorf("status.roleID %s (was %s), Keystone %+v: want the same role renamed, description after", r.Status.RoleID, id, got)
	}
	for name, want := range map[string]int{old: 0, renamed: 1} {
		pages, err := roles.List(admin, roles.ListOpts{Name: name}).AllPages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rs, _ := roles.ExtractRoles(pages); len(rs) != want {
			t.Errorf("%d roles named %s, want %d", len(rs), name, want)
		}
	}
}

// Every mutable field of a User: the name (a rename keeps the ID, so the
// password and grants stay), description, default project, the Secret the
// password comes from, and enabled.
func TestEditUserRenamesInPlace(t *testing.T) {
	ctx := context.Background()
	old, renamed := uniq(t, "ed_user"), uniq(t, "ed_user_renamed")
	p1 := &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: kname(old) + "-p1", Namespace: testNS},
		Spec: kv1.ProjectSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: old + "-p1"}}
	p2 := &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: kname(old) + "-p2", Namespace: testNS},
		Spec: kv1.ProjectSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: old + "-p2"}}
	s1 := secret(kname(old)+"-pw1", map[string]string{"OS_PASSWORD": "first-password"})
	s2 := secret(kname(old)+"-pw2", map[string]string{"pw": "second-password"})
	u := newUser(old, kname(old), "", s1.Name)
	u.Spec.Description = "before"
	u.Spec.DefaultProject = &kv1.NamedInDomain{Name: p1.Spec.Name}
	mustCreate(t, p1, p2, s1, s2, u)
	waitReady(t, p2)
	waitReady(t, u)
	id := u.Status.UserID
	if err := tryLogin(id, "first-password"); err != nil {
		t.Fatalf("login with the first password: %v", err)
	}
	edit(t, u, func(u *kv1.User) {
		u.Spec.Name, u.Spec.Description = renamed, "after"
		u.Spec.DefaultProject = &kv1.NamedInDomain{Name: p2.Spec.Name}
		u.Spec.PasswordSecret = kv1.PasswordSecretRef{Name: s2.Name, Key: "pw"}
	})
	waitReady(t, u)
	got, err := users.Get(ctx, admin, id).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if u.Status.UserID != id || got.Name != renamed || got.Description != "after" || got.DefaultProjectID != p2.Status.ProjectID || !got.Enabled {
		t.Errorf("status.userID %s (was %s), Keystone %+v: want the same user renamed, description after, default project %s", u.Status.UserID, id, got, p2.Status.ProjectID)
	}
	if err := tryLogin(id, "second-password"); err != nil {
		t.Errorf("login with the second Secret's password: %v", err)
	}
	for name, want := range map[string]int{old: 0, renamed: 1} {
		if n := len(ksUsersNamed(t, name, keystone.DefaultDomainID)); n != want {
			t.Errorf("%d users named %s, want %d", n, name, want)
		}
	}
	edit(t, u, func(u *kv1.User) { u.Spec.Enabled = ptr(false) })
	waitReady(t, u)
	if got, err := users.Get(ctx, admin, id).Extract(); err != nil || got.Enabled {
		t.Errorf("Keystone user %+v (%v): want disabled", got, err)
	}
}

// Every mutable field of an Endpoint: a URL (in place), an interface removed
// (deleted from the catalog, as this resource created it), enabled, and the
// service and region (the endpoints move: the created ones are deleted and
// new ones created there). A later delete removes all it created.
func TestEditEndpointRemovesWhatItCreated(t *testing.T) {
	ctx := context.Background()
	name := uniq(t, "ed-ep")
	s1 := ksCreateService(t, name, name+"-type", "")
	s2 := ksCreateService(t, name+"-2", name+"-type2", "")
	region2 := "RegionEd-" + name
	e := &kv1.Endpoint{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: testNS},
		Spec: kv1.EndpointSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref(), DeletionPolicy: kv1.DeletionPolicyDelete},
			Service: kv1.ServiceRef{Name: name, Type: name + "-type"}, Region: stack.Keystone.Region,
			URLs: kv1.EndpointURLs{Admin: "http://a:1", Internal: "http://i:1", Public: "http://p:1"}}}
	mustCreate(t, e)
	waitReady(t, e)
	first := e.Status.EndpointIDs
	if !slices.Equal(e.Status.CreatedInterfaces, []string{"admin", "internal", "public"}) {
		t.Errorf("createdInterfaces = %v, want all three", e.Status.CreatedInterfaces)
	}

	// A URL changed, the admin interface removed, the endpoints disabled.
	edit(t, e, func(e *kv1.Endpoint) {
		e.Spec.URLs.Admin, e.Spec.URLs.Public, e.Spec.Enabled = "", "http://p:2", ptr(false)
	})
	waitReady(t, e)
	if n := len(ksEndpoints(t, s1, "admin")); n != 0 {
		t.Errorf("%d admin endpoints left in the catalog, want 0: the removed interface was created here", n)
	}
	if ids := e.Status.EndpointIDs; ids.Admin != "" || ids.Internal != first.Internal || ids.Public != first.Public {
		t.Errorf("endpointIDs = %+v, want no admin and the same internal and public as %+v", ids, first)
	}
	pub, err := endpoints.Get(ctx, admin, first.Public).Extract()
	if err != nil || pub.URL != "http://p:2" || pub.Enabled {
		t.Errorf("public endpoint %+v (%v): want the new URL, disabled, same ID", pub, err)
	}

	// Another service and region: the endpoints move.
	edit(t, e, func(e *kv1.Endpoint) {
		e.Spec.Service, e.Spec.Region, e.Spec.Enabled = kv1.ServiceRef{Name: name + "-2", Type: name + "-type2"}, region2, ptr(true)
	})
	waitReady(t, e)
	for _, iface := range []string{"admin", "internal", "public"} {
		if n := len(ksEndpoints(t, s1, iface)); n != 0 {
			t.Errorf("%d %s endpoints left under the old service, want 0", n, iface)
		}
	}
	for _, iface := range []string{"internal", "public"} {
		es := ksEndpoints(t, s2, iface)
		if len(es) != 1 || es[0].RegionID != region2 || !es[0].Enabled {
			t.Errorf("%s endpoints under the new service: %+v, want one in %s, enabled", iface, es, region2)
		}
	}

	// Delete: every endpoint it created goes.
	if err := k8s.Delete(ctx, e); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Endpoint resource gone", func() (bool, string) {
		err := k8s.Get(ctx, client.ObjectKeyFromObject(e), e)
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	for _, iface := range []string{"admin", "internal", "public"} {
		if n := len(ksEndpoints(t, s2, iface)); n != 0 {
			t.Errorf("%d %s endpoints left after the delete, want 0", n, iface)
		}
	}
}

// An interface whose endpoint was adopted (it was in the catalog before) is
// released when it leaves spec.urls: this resource did not create it, so it
// stays in the catalog, and the Ready message names it.
func TestEditEndpointReleasesAdoptedInterface(t *testing.T) {
	name := uniq(t, "ed-ep-adopt")
	sid := ksCreateService(t, name, name+"-type", "")
	adopted := ksCreateEndpoint(t, sid, "admin", "http://a:1", true)
	e := &kv1.Endpoint{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: testNS},
		Spec: kv1.EndpointSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()},
			Service: kv1.ServiceRef{Name: name, Type: name + "-type"}, Region: stack.Keystone.Region,
			URLs: kv1.EndpointURLs{Admin: "http://a:1", Public: "http://p:1"}}}
	mustCreate(t, e)
	waitReady(t, e)
	if e.Status.EndpointIDs.Admin != adopted || !slices.Equal(e.Status.CreatedInterfaces, []string{"public"}) {
		t.Fatalf("status %+v: want the admin endpoint %s adopted and only public created", e.Status, adopted)
	}
	edit(t, e, func(e *kv1.Endpoint) { e.Spec.URLs.Admin = "" })
	waitReady(t, e)
	if es := ksEndpoints(t, sid, "admin"); len(es) != 1 || es[0].ID != adopted {
		t.Errorf("admin endpoints %+v: want the adopted %s kept", es, adopted)
	}
	if c := readyOf(t, e); e.Status.EndpointIDs.Admin != "" || !strings.Contains(c.Message, adopted) {
		t.Errorf("status %+v, Ready %q: want the admin ID released and named", e.Status.EndpointIDs, c.Message)
	}
}

// Two Domains declare one Keystone domain; one of them changes its name. The
// domain is not renamed under the other (the two would rename it back and
// forth): the edited one gets a domain of its new name, the other keeps the
// old one, and both are Ready.
func TestRenameOfSharedObjectLeavesItWithTheOther(t *testing.T) {
	ctx := context.Background()
	name := uniq(t, "ed-shared")
	decl := func(chart string) *kv1.Domain {
		return &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: chart + "-" + kname(name), Namespace: testNS},
			Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: name}}
	}
	a, b := decl("cinder"), decl("glance")
	mustCreate(t, a)
	waitReady(t, a)
	mustCreate(t, b)
	waitReady(t, b)
	shared := a.Status.DomainID
	if b.Status.DomainID != shared {
		t.Fatalf("domainIDs %s and %s, want one shared domain", shared, b.Status.DomainID)
	}
	edit(t, a, func(d *kv1.Domain) { d.Spec.Name = name + "-own" })
	waitReady(t, a)
	if a.Status.DomainID == shared {
		t.Errorf("cinder still records the shared domain %s", shared)
	}
	if got, err := domains.Get(ctx, admin, shared).Extract(); err != nil || got.Name != name {
		t.Errorf("shared domain %+v (%v): want it kept under %s for glance", got, err, name)
	}
	if n := len(ksDomainsNamed(t, name+"-own")); n != 1 {
		t.Errorf("%d domains named %s-own, want 1", n, name)
	}
	// Over two forced resyncs, nothing renames the shared domain.
	lookups := proxy.lookupCount("/v3/domains", map[string][]string{"name": {name}})
	eventually(t, "two resyncs of glance", func() (bool, string) {
		n := proxy.lookupCount("/v3/domains", map[string][]string{"name": {name}}) - lookups
		return n >= 2, fmt.Sprintf("%d lookups", n)
	})
	if got, err := domains.Get(ctx, admin, shared).Extract(); err != nil || got.Name != name {
		t.Errorf("shared domain %+v (%v) after the resyncs: want it still named %s", got, err, name)
	}
	waitReady(t, b)
}

// A rename onto a name Keystone already holds cannot merge the two: the
// resource reports Ready=False naming both IDs, and the object it tracks
// stays under its old name (not left behind for the other).
func TestRenameOntoExistingNameIsRefused(t *testing.T) {
	ctx := context.Background()
	name, taken := uniq(t, "ed-from"), uniq(t, "ed-taken")
	other, err := domains.Create(ctx, admin, domains.CreateOpts{Name: taken, Enabled: ptr(true)}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	d := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: testNS},
		Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: name}}
	mustCreate(t, d)
	waitReady(t, d)
	id := d.Status.DomainID
	edit(t, d, func(d *kv1.Domain) { d.Spec.Name = taken })
	eventually(t, "Ready=False naming both domains", func() (bool, string) {
		c := readyOf(t, d)
		return c != nil && c.Status == metav1.ConditionFalse && c.ObservedGeneration == d.Generation &&
			strings.Contains(c.Message, id) && strings.Contains(c.Message, other.ID), fmt.Sprint(c)
	})
	if d.Status.DomainID != id {
		t.Errorf("status.domainID %s, want the tracked %s kept", d.Status.DomainID, id)
	}
	if got, err := domains.Get(ctx, admin, id).Extract(); err != nil || got.Name != name {
		t.Errorf("tracked domain %+v (%v): want it unchanged", got, err)
	}
}

// The fields Keystone cannot change are immutable: the API server refuses
// the edit with a message that names the remedy. Equivalent spellings of the
// default domain are not an edit.
func TestImmutableIdentityFieldsRefused(t *testing.T) {
	ctx := context.Background()
	notServed := &kv1.KeystoneRef{Name: "validation-only"} // no Keystone calls
	common := kv1.CommonSpec{KeystoneRef: notServed}
	sfx := kname(uniq(t, "imm"))
	tests := []struct {
		name   string
		obj    client.Object
		mutate func(client.Object)
		want   string // "" accepted
	}{
		{"project domain", &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: "p-" + sfx}, Spec: kv1.ProjectSpec{CommonSpec: common, Name: "p", Domain: "a"}},
			func(o client.Object) { o.(*kv1.Project).Spec.Domain = "b" }, "spec.domain is immutable"},
		{"project domain removed", &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: "p2-" + sfx}, Spec: kv1.ProjectSpec{CommonSpec: common, Name: "p", Domain: "a"}},
			func(o client.Object) { o.(*kv1.Project).Spec.Domain = "" }, "create a new Project resource and delete this one"},
		{"project Default spelled out", &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: "p3-" + sfx}, Spec: kv1.ProjectSpec{CommonSpec: common, Name: "p"}},
			func(o client.Object) { o.(*kv1.Project).Spec.Domain = "Default" }, ""},
		{"project rename", &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: "p4-" + sfx}, Spec: kv1.ProjectSpec{CommonSpec: common, Name: "p"}},
			func(o client.Object) { o.(*kv1.Project).Spec.Name = "q" }, ""},
		{"user domain", &kv1.User{ObjectMeta: metav1.ObjectMeta{Name: "u-" + sfx}, Spec: kv1.UserSpec{CommonSpec: common, Name: "u", PasswordSecret: kv1.PasswordSecretRef{Name: "s"}}},
			func(o client.Object) { o.(*kv1.User).Spec.Domain = "other" }, "create a new User resource and delete this one"},
		{"group domain", &kv1.Group{ObjectMeta: metav1.ObjectMeta{Name: "g-" + sfx}, Spec: kv1.GroupSpec{CommonSpec: common, Name: "g", Domain: "a"}},
			func(o client.Object) { o.(*kv1.Group).Spec.Domain = "b" }, "create a new Group resource and delete this one"},
		{"role made domain-specific", &kv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r-" + sfx}, Spec: kv1.RoleSpec{CommonSpec: common, Name: "r"}},
			func(o client.Object) { o.(*kv1.Role).Spec.Domain = "a" }, "create a new Role resource and delete this one"},
		{"domain renamed to Default", &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: "d-" + sfx}, Spec: kv1.DomainSpec{CommonSpec: common, Name: "d"}},
			func(o client.Object) { o.(*kv1.Domain).Spec.Name = "default" }, "cannot change to or from the default domain"},
		{"role assignment role", newAssignment("ra1-"+sfx, common), func(o client.Object) { o.(*kv1.RoleAssignment).Spec.Role.Name = "admin" },
			"create a new RoleAssignment and delete this one"},
		{"role assignment user", newAssignment("ra2-"+sfx, common), func(o client.Object) { o.(*kv1.RoleAssignment).Spec.User.Name = "other" },
			"role, user, group, project, domain and system are immutable"},
		{"role assignment user to group", newAssignment("ra3-"+sfx, common), func(o client.Object) {
			ra := o.(*kv1.RoleAssignment)
			ra.Spec.User, ra.Spec.Group = nil, &kv1.NamedInDomain{Name: "g"}
		}, "role, user, group, project, domain and system are immutable"},
		{"role assignment project", newAssignment("ra4-"+sfx, common), func(o client.Object) { o.(*kv1.RoleAssignment).Spec.Project.Domain = "other" },
			"role, user, group, project, domain and system are immutable"},
		{"role assignment project to system", newAssignment("ra6-"+sfx, common), func(o client.Object) {
			ra := o.(*kv1.RoleAssignment)
			ra.Spec.Project, ra.Spec.System = nil, "all"
		}, "role, user, group, project, domain and system are immutable"},
		{"role assignment deletionPolicy", newAssignment("ra5-"+sfx, common), func(o client.Object) {
			o.(*kv1.RoleAssignment).Spec.DeletionPolicy = kv1.DeletionPolicyDelete
		}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.obj.SetNamespace(testNS)
			mustCreate(t, tc.obj)
			err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				if err := k8s.Get(ctx, client.ObjectKeyFromObject(tc.obj), tc.obj); err != nil {
					return err
				}
				tc.mutate(tc.obj)
				return k8s.Update(ctx, tc.obj)
			})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error = %v, want Invalid mentioning %q", err, tc.want)
			}
		})
	}
}

func newAssignment(name string, common kv1.CommonSpec) *kv1.RoleAssignment {
	return &kv1.RoleAssignment{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kv1.RoleAssignmentSpec{CommonSpec: common, Role: kv1.RoleRef{Name: "member"},
			User: &kv1.NamedInDomain{Name: "u"}, Project: &kv1.NamedInDomain{Name: "p"}}}
}

func ksProjectsNamed(t *testing.T, name string) []projects.Project {
	t.Helper()
	pages, err := projects.List(admin, projects.ListOpts{Name: name, DomainID: keystone.DefaultDomainID}).AllPages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ps, _ := projects.ExtractProjects(pages)
	return ps
}
