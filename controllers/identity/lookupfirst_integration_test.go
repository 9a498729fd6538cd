//go:build integration

package identity

import (
	"context"
	"net/http"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// The shared objects every chart declares (the service domain and project, a
// role) already exist in Keystone. Two charts declare each of them: every
// declaration adopts the existing object after a lookup, and no create is
// sent, so no POST is answered with 409 Conflict.
func TestSharedObjectsCostNoFailedPost(t *testing.T) {
	ctx := context.Background()
	dname, pname, rname := uniq(t, "shared-dom"), uniq(t, "shared-proj"), uniq(t, "shared-role")
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
	conflicts := func() int {
		return proxy.responseCount("POST /v3/domains", http.StatusConflict) +
			proxy.responseCount("POST /v3/projects", http.StatusConflict) +
			proxy.responseCount("POST /v3/roles", http.StatusConflict)
	}
	before := conflicts()
	for _, chart := range []string{"cinder", "glance"} {
		objs := []kobj{
			&kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: chart + "-" + kname(dname), Namespace: testNS},
				Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: dname}},
			&kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: chart + "-" + kname(pname), Namespace: testNS},
				Spec: kv1.ProjectSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: pname, Domain: dname}},
			&kv1.Role{ObjectMeta: metav1.ObjectMeta{Name: chart + "-" + kname(rname), Namespace: testNS},
				Spec: kv1.RoleSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: rname}},
		}
		for _, o := range objs {
			mustCreate(t, o)
		}
		for _, o := range objs {
			waitReady(t, o)
		}
		if got := objs[0].(*kv1.Domain).Status.DomainID; got != d.ID {
			t.Errorf("%s: domainID %q, want the existing %q", chart, got, d.ID)
		}
		if got := objs[1].(*kv1.Project).Status.ProjectID; got != p.ID {
			t.Errorf("%s: projectID %q, want the existing %q", chart, got, p.ID)
		}
		if got := objs[2].(*kv1.Role).Status.RoleID; got != r.ID {
			t.Errorf("%s: roleID %q, want the existing %q", chart, got, r.ID)
		}
	}
	if n := conflicts() - before; n != 0 {
		t.Errorf("%d POSTs answered 409 Conflict; a shared object must cost no failed POST", n)
	}
}
