//go:build integration

package identity

import (
	"context"
	"net/http"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// A new domain, project, group, role and user (names Keystone keeps unique)
// are each created with one POST that is the first request naming them: no
// lookup by name before it (docs/identity.md, "Create or adopt"). Later
// lookups are allowed: a re-apply of a recorded object reads it, and a
// dependent resolves its domain by name once the ID cache entry expired.
func TestNewUniqueObjectsOnePostNoLookup(t *testing.T) {
	dname := uniq(t, "cf-dom")
	dom := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: kname(dname), Namespace: testNS},
		Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: dname}}
	mustCreate(t, dom)
	waitReady(t, dom)
	pnames := []string{uniq(t, "cf-proj-a"), uniq(t, "cf-proj-b"), uniq(t, "cf-proj-c")}
	gname, rname, uname := uniq(t, "cf-group"), uniq(t, "cf-role"), uniq(t, "cf-user")
	var objs []kobj
	for _, p := range pnames {
		objs = append(objs, &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: kname(p), Namespace: testNS},
			Spec: kv1.ProjectSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: p, Domain: dname}})
	}
	objs = append(objs,
		&kv1.Group{ObjectMeta: metav1.ObjectMeta{Name: kname(gname), Namespace: testNS},
			Spec: kv1.GroupSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: gname, Domain: dname}},
		&kv1.Role{ObjectMeta: metav1.ObjectMeta{Name: kname(rname), Namespace: testNS},
			Spec: kv1.RoleSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: rname}},
		newUser(uname, kname(uname), dname, kname(uname)+"-pw"))
	mustCreate(t, secret(kname(uname)+"-pw", map[string]string{"OS_PASSWORD": "cf-password"}))
	for _, o := range objs {
		mustCreate(t, o)
	}
	for _, o := range objs {
		waitReady(t, o)
	}
	own := map[string]string{dname: "/v3/domains", gname: "/v3/groups", rname: "/v3/roles", uname: "/v3/users"}
	for _, p := range pnames {
		own[p] = "/v3/projects"
	}
	for name, path := range own {
		if n := proxy.createCount(path, name); n != 1 {
			t.Errorf("%s %s: %d POSTs, want 1", path, name, n)
		}
		if m := proxy.firstRequest(path, name); m != http.MethodPost {
			t.Errorf("%s %s: first request %s, want POST (created first, no lookup before)", path, name, m)
		}
	}
}

// Objects made outside orderhub (a job, an operator) are adopted by the
// resources that declare them: each declaration's POST is answered 409
// Conflict, the object is looked up and its ID recorded, and Keystone still
// holds one object of each name. An adopted User's password is probed and,
// as it differs, written (docs/identity.md, "Users and passwords").
func TestPreCreatedObjectsAdoptedOnConflict(t *testing.T) {
	ctx := context.Background()
	dname, pname, rname, gname, uname := uniq(t, "ad-dom"), uniq(t, "ad-proj"), uniq(t, "ad-role"), uniq(t, "ad-group"), uniq(t, "ad-user")
	d, err := domains.Create(ctx, admin, domains.CreateOpts{Name: dname, Enabled: ptr(true)}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	p, err := projects.Create(ctx, admin, projects.CreateOpts{Name: pname, DomainID: d.ID, Enabled: ptr(true)}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	r, err := roles.Create(ctx, admin, roles.CreateOpts{Name: rname}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	g, err := groups.Create(ctx, admin, groups.CreateOpts{Name: gname, DomainID: d.ID}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	u, err := users.Create(ctx, admin, users.CreateOpts{Name: uname, DomainID: d.ID, Password: "made-outside", Enabled: ptr(true)}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{dname: d.ID, pname: p.ID, rname: r.ID, gname: g.ID, uname: u.ID}
	for i, chart := range []string{"cinder", "glance"} {
		objs := []kobj{
			&kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: chart + "-" + kname(dname), Namespace: testNS},
				Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: dname}},
			&kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: chart + "-" + kname(pname), Namespace: testNS},
				Spec: kv1.ProjectSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: pname, Domain: dname}},
			&kv1.Role{ObjectMeta: metav1.ObjectMeta{Name: chart + "-" + kname(rname), Namespace: testNS},
				Spec: kv1.RoleSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: rname}},
			&kv1.Group{ObjectMeta: metav1.ObjectMeta{Name: chart + "-" + kname(gname), Namespace: testNS},
				Spec: kv1.GroupSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: gname, Domain: dname}},
		}
		if i == 0 {
			mustCreate(t, secret(kname(uname)+"-pw", map[string]string{"OS_PASSWORD": "declared-password"}))
			objs = append(objs, newUser(uname, chart+"-"+kname(uname), dname, kname(uname)+"-pw"))
		}
		for _, o := range objs {
			mustCreate(t, o)
		}
		for _, o := range objs {
			waitReady(t, o)
			if got := o.(idRecorder).KeystoneIDs(); len(got) != 1 || got[0] != want[specName(o)] {
				t.Errorf("%s %s: recorded %v, want the existing %s", chart, o.GetName(), got, want[specName(o)])
			}
		}
	}
	for name, path := range map[string]string{dname: "/v3/domains", pname: "/v3/projects", rname: "/v3/roles", gname: "/v3/groups"} {
		if n := proxy.responseCount("POST "+path, 409); n == 0 {
			t.Errorf("POST %s: no 409 answered", path)
		}
		if n := proxy.createCount(path, name); n != 2 {
			t.Errorf("%s %s: %d POSTs for two declarations, want 2 (one each, answered 409)", path, name, n)
		}
	}
	dpages, err := domains.List(admin, domains.ListOpts{Name: dname}).AllPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if all, _ := domains.ExtractDomains(dpages); len(all) != 1 {
		t.Errorf("%d domains named %s, want 1", len(all), dname)
	}
	ppages, err := projects.List(admin, projects.ListOpts{Name: pname, DomainID: d.ID}).AllPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if all, _ := projects.ExtractProjects(ppages); len(all) != 1 {
		t.Errorf("%d projects named %s, want 1", len(all), pname)
	}
	if err := tryLogin(u.ID, "declared-password"); err != nil {
		t.Errorf("the adopted user does not accept the declared password: %v", err)
	}
}

// specName is the Keystone name a resource declares.
func specName(o kobj) string {
	switch v := o.(type) {
	case *kv1.Domain:
		return v.Spec.Name
	case *kv1.Project:
		return v.Spec.Name
	case *kv1.Role:
		return v.Spec.Name
	case *kv1.Group:
		return v.Spec.Name
	case *kv1.User:
		return v.Spec.Name
	}
	return ""
}
