//go:build integration

package identity

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/endpoints"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
	"github.com/c5c3/orderhub/internal/testenv"
)

// --- Keystone-side helpers (admin, direct) ---

func ksDomainsNamed(t *testing.T, name string) []domains.Domain {
	t.Helper()
	return testenv.KeystoneList(t, domains.List(admin, domains.ListOpts{Name: name}), domains.ExtractDomains)
}

func ksAllDomains(t *testing.T) []domains.Domain {
	t.Helper()
	return testenv.KeystoneList(t, domains.List(admin, nil), domains.ExtractDomains)
}

func ksEndpoints(t *testing.T, serviceID, iface string) []endpoints.Endpoint {
	t.Helper()
	return testenv.KeystoneList(t, endpoints.List(admin, endpoints.ListOpts{ServiceID: serviceID, Availability: gophercloud.Availability(iface)}),
		endpoints.ExtractEndpoints)
}

func ksCreateService(t *testing.T, name, typ, desc string) string {
	t.Helper()
	s, err := services.Create(context.Background(), admin, services.CreateOpts{Name: name, Type: typ, Description: desc, Enabled: ptr(true)}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

func ksCreateEndpoint(t *testing.T, serviceID, iface, url string, enabled bool) string {
	t.Helper()
	e, err := endpoints.Create(context.Background(), admin, endpointCreate{Interface: iface, URL: url, ServiceID: serviceID,
		RegionID: stack.Keystone.Region, Enabled: enabled}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	return e.ID
}

func ksUsersNamed(t *testing.T, name, domainID string) []users.User {
	t.Helper()
	return testenv.KeystoneList(t, users.List(admin, users.ListOpts{Name: name, DomainID: domainID}), users.ExtractUsers)
}

// tryLogin asks for an unscoped token directly at Keystone (not counted by the proxy).
func tryLogin(userID, password string) error {
	return tokens.Create(context.Background(), admin, &tokens.AuthOptions{UserID: userID, Password: password}).Err
}

// --- test fixtures ---

func newUser(name, kname, domain, secretName string) *kv1.User {
	return &kv1.User{ObjectMeta: metav1.ObjectMeta{Name: kname, Namespace: testNS},
		Spec: kv1.UserSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: name, Domain: domain,
			PasswordSecret: kv1.PasswordSecretRef{Name: secretName}}}
}

// --- tests ---

// A password that does not change produces probes on every forced resync but
// no failed login and no password write.
func TestPasswordUnchangedNoFailedLoginsNoWrites(t *testing.T) {
	name := uniq(t, "svc_user")
	sec := secret(kname(name)+"-pw", map[string]string{"OS_PASSWORD": "s3cret,with.regex*chars"})
	u := newUser(name, kname(name), "", sec.Name)
	mustCreate(t, sec, u)
	waitReady(t, u)
	id := u.Status.UserID
	if id == "" {
		t.Fatal("status.userID not set")
	}
	start := proxy.probeCount(id)
	eventually(t, "five forced resyncs probing the password", func() (bool, string) {
		n := proxy.probeCount(id) - start
		return n >= 5, fmt.Sprintf("%d probes", n)
	})
	if n := proxy.passwordWrites(id); n != 0 {
		t.Errorf("password written %d times, want 0", n)
	}
	if failed := failedAuthCount(t, id); failed != 0 {
		t.Errorf("Keystone failed_auth_count = %d, want 0", failed)
	}
	if err := tryLogin(id, "s3cret,with.regex*chars"); err != nil {
		t.Errorf("login with the Secret's password: %v", err)
	}
}

// Changing the value inside the same Secret re-triggers the User (Secret
// watch) and writes the password exactly once.
func TestPasswordChangedInSameSecretAppliedOnce(t *testing.T) {
	ctx := ctxT(t)
	name := uniq(t, "rotating")
	sec := secret(kname(name)+"-pw", map[string]string{"OS_PASSWORD": "first-password"})
	u := newUser(name, kname(name), "", sec.Name)
	mustCreate(t, sec, u)
	waitReady(t, u)
	id := u.Status.UserID
	sec.Data["OS_PASSWORD"] = []byte("second-password")
	if err := k8s.Update(ctx, sec); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the new password written", func() (bool, string) {
		n := proxy.passwordWrites(id)
		return n >= 1, fmt.Sprintf("%d writes", n)
	})
	start := proxy.probeCount(id)
	eventually(t, "three more resyncs", func() (bool, string) {
		n := proxy.probeCount(id) - start
		return n >= 3, fmt.Sprintf("%d probes", n)
	})
	if n := proxy.passwordWrites(id); n != 1 {
		t.Errorf("password written %d times, want exactly 1", n)
	}
	if err := tryLogin(id, "second-password"); err != nil {
		t.Errorf("login with the new password: %v", err)
	}
	if failed := failedAuthCount(t, id); failed != 0 {
		t.Errorf("failed_auth_count after the successful probes = %d, want 0", failed)
	}
}

// "Default", "default" and "DEFAULT" all mean the default domain; no second
// domain is created.
func TestDefaultDomainNeverDuplicated(t *testing.T) {
	before := len(ksAllDomains(t))
	var objs []kobj
	for _, n := range []string{"Default", "default", "DEFAULT"} {
		d := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: "dflt-" + strings.ToLower(n) + fmt.Sprint(len(objs)), Namespace: testNS},
			Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: n}}
		objs = append(objs, d)
	}
	pname := uniq(t, "in-default")
	p := &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: kname(pname), Namespace: testNS},
		Spec: kv1.ProjectSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: pname, Domain: "DeFaUlT"}}
	objs = append(objs, p)
	for _, o := range objs {
		mustCreate(t, o)
	}
	for _, o := range objs {
		waitReady(t, o)
	}
	for _, o := range objs[:3] {
		if id := o.(*kv1.Domain).Status.DomainID; id != keystone.DefaultDomainID {
			t.Errorf("%s: domainID = %q, want default", o.GetName(), id)
		}
	}
	pr, err := projects.Get(context.Background(), admin, p.Status.ProjectID).Extract()
	if err != nil || pr.DomainID != keystone.DefaultDomainID {
		t.Errorf("project domain = %v (%v), want default", pr, err)
	}
	if after := len(ksAllDomains(t)); after != before {
		t.Errorf("domains: %d before, %d after; a second default domain was created", before, after)
	}
}

// A disabled endpoint is found, adopted and enabled, not duplicated.
func TestDisabledEndpointFoundNotDuplicated(t *testing.T) {
	name := uniq(t, "disabled")
	typ := name + "-type"
	sid := ksCreateService(t, name, typ, "")
	pre := ksCreateEndpoint(t, sid, "public", "http://old.example/v1", false)
	e := &kv1.Endpoint{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: testNS},
		Spec: kv1.EndpointSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Service: kv1.ServiceRef{Name: name, Type: typ},
			Region: stack.Keystone.Region, URLs: kv1.EndpointURLs{Public: "http://new.example/v1"}}}
	mustCreate(t, e)
	waitReady(t, e)
	if e.Status.EndpointIDs.Public != pre {
		t.Errorf("endpointIDs.public = %q, want the disabled one %q", e.Status.EndpointIDs.Public, pre)
	}
	es := ksEndpoints(t, sid, "public")
	if len(es) != 1 {
		t.Fatalf("%d public endpoints, want 1", len(es))
	}
	if !es[0].Enabled || es[0].URL != "http://new.example/v1" {
		t.Errorf("endpoint = %+v, want enabled with the new URL", es[0])
	}
}

// A URL change is a PATCH: the endpoint keeps its ID.
func TestEndpointURLChangeKeepsID(t *testing.T) {
	ctx := ctxT(t)
	name := uniq(t, "cinderv3")
	typ := name + "-volumev3"
	svc := &kv1.Service{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: testNS},
		Spec: kv1.ServiceSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: name, Type: typ, Description: "RegionOne: cinderv3"}}
	e := &kv1.Endpoint{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: testNS},
		Spec: kv1.EndpointSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Service: kv1.ServiceRef{Name: name, Type: typ},
			Region: "RegionNew-" + name, URLs: kv1.EndpointURLs{
				Admin: "http://cinder-api:8776/v3", Internal: "http://cinder-api:8776/v3", Public: "http://cinder.example/v3"}}}
	// Endpoint first: it must wait for its Service and say so.
	mustCreate(t, e)
	eventually(t, "Endpoint waiting for its Service", func() (bool, string) {
		c := readyOf(t, e)
		return c != nil && c.Reason == kv1.ReasonReconcileError && strings.Contains(c.Message, name), fmt.Sprint(c)
	})
	mustCreate(t, svc)
	waitReady(t, svc)
	waitReady(t, e)
	ids := e.Status.EndpointIDs
	if ids.Admin == "" || ids.Internal == "" || ids.Public == "" {
		t.Fatalf("endpointIDs = %+v, want all three", ids)
	}
	e.Spec.URLs.Public = "https://cinder.example.org/v3"
	if err := k8s.Update(ctx, e); err != nil {
		t.Fatal(err)
	}
	waitReady(t, e)
	if e.Status.EndpointIDs != ids {
		t.Errorf("endpointIDs changed from %+v to %+v", ids, e.Status.EndpointIDs)
	}
	got, err := endpoints.List(admin, endpoints.ListOpts{ServiceID: svc.Status.ServiceID, Availability: gophercloud.AvailabilityPublic}).AllPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	es, _ := endpoints.ExtractEndpoints(got)
	if len(es) != 1 || es[0].ID != ids.Public || es[0].URL != "https://cinder.example.org/v3" {
		t.Errorf("public endpoints = %+v, want one with ID %s and the new URL", es, ids.Public)
	}
}

// Two duplicates: the lowest ID is adopted, the other named in the Ready
// message; neither is deleted.
func TestDuplicateEndpointsReportedNotDeleted(t *testing.T) {
	name := uniq(t, "dup")
	typ := name + "-type"
	sid := ksCreateService(t, name, typ, "")
	a := ksCreateEndpoint(t, sid, "internal", "http://a.example/", true)
	b := ksCreateEndpoint(t, sid, "internal", "http://b.example/", true)
	low, high := a, b
	if b < a {
		low, high = b, a
	}
	e := &kv1.Endpoint{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: testNS},
		Spec: kv1.EndpointSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Service: kv1.ServiceRef{Name: name, Type: typ},
			Region: stack.Keystone.Region, URLs: kv1.EndpointURLs{Internal: "http://a.example/"}}}
	mustCreate(t, e)
	waitReady(t, e)
	if e.Status.EndpointIDs.Internal != low {
		t.Errorf("adopted %q, want the lowest ID %q", e.Status.EndpointIDs.Internal, low)
	}
	c := meta.FindStatusCondition(e.Status.Conditions, kv1.ConditionReady)
	if !strings.Contains(c.Message, high) {
		t.Errorf("Ready message %q does not name the duplicate %s", c.Message, high)
	}
	if es := ksEndpoints(t, sid, "internal"); len(es) != 2 {
		t.Errorf("%d internal endpoints, want both duplicates kept", len(es))
	}
}

// A user deleted outside the controller is re-created by the forced resync.
func TestUserDeletedOutOfBandRecreatedOnResync(t *testing.T) {
	name := uniq(t, "victim")
	sec := secret(kname(name)+"-pw", map[string]string{"OS_PASSWORD": "pw-1"})
	u := newUser(name, kname(name), "", sec.Name)
	mustCreate(t, sec, u)
	waitReady(t, u)
	old := u.Status.UserID
	if err := users.Delete(context.Background(), admin, old).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the user re-created in Keystone", func() (bool, string) {
		us := ksUsersNamed(t, name, keystone.DefaultDomainID)
		return len(us) == 1 && us[0].ID != old, fmt.Sprintf("%d users", len(us))
	})
	eventually(t, "status.userID updated", func() (bool, string) {
		readyOf(t, u)
		return u.Status.UserID != "" && u.Status.UserID != old, u.Status.UserID
	})
	if err := tryLogin(u.Status.UserID, "pw-1"); err != nil {
		t.Errorf("login as the re-created user: %v", err)
	}
}

// deletionPolicy delete: a finalizer is added, and deleting the resource
// disables and deletes the domain in Keystone.
func TestDomainDeletionPolicyDelete(t *testing.T) {
	ctx := ctxT(t)
	name := uniq(t, "doomed")
	d := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: testNS},
		Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref(), DeletionPolicy: kv1.DeletionPolicyDelete}, Name: name}}
	mustCreate(t, d)
	waitReady(t, d)
	if !controllerutil.ContainsFinalizer(d, kv1.Finalizer) {
		t.Fatal("no finalizer on a deletionPolicy: delete resource")
	}
	if len(ksDomainsNamed(t, name)) != 1 {
		t.Fatal("domain not in Keystone")
	}
	if err := k8s.Delete(ctx, d); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the resource gone", func() (bool, string) {
		err := k8s.Get(ctx, client.ObjectKeyFromObject(d), d)
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	if n := len(ksDomainsNamed(t, name)); n != 0 {
		t.Errorf("%d domains named %s left in Keystone, want 0", n, name)
	}
}

// A resource for another keystoneRef gets no status, and only our finalizer
// is removed from it.
func TestForeignKeystoneRefGetsNoStatus(t *testing.T) {
	name := uniq(t, "foreign")
	f := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: testNS,
		Finalizers: []string{kv1.Finalizer, "example.com/other"}},
		Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: &kv1.KeystoneRef{Name: "other-keystone"},
			DeletionPolicy: kv1.DeletionPolicyDelete}, Name: name}}
	mustCreate(t, f)
	eventually(t, "our finalizer removed from the foreign resource", func() (bool, string) {
		readyOf(t, f)
		return !controllerutil.ContainsFinalizer(f, kv1.Finalizer), fmt.Sprint(f.Finalizers)
	})
	// A resource created afterwards is served; once it is Ready the foreign
	// one has been through the loop too.
	s := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: kname(name) + "-ours", Namespace: testNS},
		Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{}, Name: name + "-ours"}}
	mustCreate(t, s)
	waitReady(t, s)
	readyOf(t, f)
	if len(f.Status.Conditions) != 0 || f.Status.ObservedGeneration != 0 || f.Status.DomainID != "" {
		t.Errorf("foreign resource has status %+v", f.Status)
	}
	if !controllerutil.ContainsFinalizer(f, "example.com/other") {
		t.Error("another controller's finalizer was removed")
	}
	if n := len(ksDomainsNamed(t, name)); n != 0 {
		t.Errorf("foreign domain created in Keystone (%d)", n)
	}
	f.Finalizers = nil
	_ = k8s.Update(context.Background(), f)
}

// A Project whose Domain is missing reports ReconcileError naming it and
// becomes Ready once the Domain exists.
func TestDependencyMissingThenSatisfied(t *testing.T) {
	dname := uniq(t, "later.dom")
	p := &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: kname(dname) + "-p", Namespace: testNS},
		Spec: kv1.ProjectSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref(), RetryInterval: "200ms"}, Name: "p", Domain: dname}}
	mustCreate(t, p)
	eventually(t, "ReconcileError naming the domain", func() (bool, string) {
		c := readyOf(t, p)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == kv1.ReasonReconcileError &&
			strings.Contains(c.Message, fmt.Sprintf("domain %q", dname)), fmt.Sprint(c)
	})
	d := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: kname(dname), Namespace: testNS},
		Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: dname}}
	mustCreate(t, d)
	waitReady(t, d)
	waitReady(t, p)
}

// Service: a changed description and enabled flag are applied to an existing service.
func TestServiceDescriptionAndEnabledApplied(t *testing.T) {
	name := uniq(t, "svc")
	typ := name + "-t"
	sid := ksCreateService(t, name, typ, "old description")
	s := &kv1.Service{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: testNS},
		Spec: kv1.ServiceSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: name, Type: typ,
			Description: "new description", Enabled: ptr(false)}}
	mustCreate(t, s)
	waitReady(t, s)
	if s.Status.ServiceID != sid {
		t.Errorf("serviceID = %q, want the existing %q", s.Status.ServiceID, sid)
	}
	got, err := services.Get(context.Background(), admin, sid).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if got.Description != "new description" || got.Enabled {
		t.Errorf("service = %+v, want the new description and disabled", got)
	}
}

// Names with commas, dots, underscores and regex characters are matched
// exactly: "a.b" does not adopt "axb".
func TestNamesWithSpecialCharacters(t *testing.T) {
	base := uniq(t, "n")
	decoy, err := projects.Create(context.Background(), admin, projects.CreateOpts{Name: base + "axb", DomainID: keystone.DefaultDomainID}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{base + "a.b", base + "a,b", base + "a_b", base + "a.*[b]"}
	var ps []*kv1.Project
	for i, n := range names {
		p := &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-special-%d", kname(base), i), Namespace: testNS},
			Spec: kv1.ProjectSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: n}}
		mustCreate(t, p)
		ps = append(ps, p)
	}
	seen := map[string]string{}
	for i, p := range ps {
		waitReady(t, p)
		id := p.Status.ProjectID
		if id == decoy.ID {
			t.Errorf("%q adopted the decoy %q", names[i], decoy.Name)
		}
		if other, dup := seen[id]; dup {
			t.Errorf("%q and %q share project %s", names[i], other, id)
		}
		seen[id] = names[i]
		got, err := projects.Get(context.Background(), admin, id).Extract()
		if err != nil || got.Name != names[i] {
			t.Errorf("project %s = %v (%v), want name %q", id, got, err, names[i])
		}
	}
}

// The controller reads its own namespace only: a resource elsewhere is never
// reconciled.
func TestOtherNamespaceIgnored(t *testing.T) {
	ctx := ctxT(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "identity-elsewhere"}}
	if err := k8s.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	name := uniq(t, "elsewhere")
	other := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: ns.Name},
		Spec: kv1.DomainSpec{Name: name}}
	mustCreate(t, other)
	// Created afterwards in the served namespace: once it is Ready, the
	// other one would have been reconciled too if it were watched.
	s := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: kname(name) + "-here", Namespace: testNS},
		Spec: kv1.DomainSpec{Name: name + "-here"}}
	mustCreate(t, s)
	waitReady(t, s)
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(other), other); err != nil {
		t.Fatal(err)
	}
	if len(other.Status.Conditions) != 0 {
		t.Errorf("resource in another namespace got status %+v", other.Status)
	}
	if n := len(ksDomainsNamed(t, name)); n != 0 {
		t.Errorf("domain of another namespace created in Keystone (%d)", n)
	}
}

// A probe that fails with a network error or a non-401 status never writes
// the password; the User reports ReconcileError, and once Keystone answers
// again the new password is written exactly once.
func TestPasswordProbeFailureNeverWrites(t *testing.T) {
	ctx := ctxT(t)
	name := uniq(t, "flaky")
	sec := secret(kname(name)+"-pw", map[string]string{"OS_PASSWORD": "before"})
	u := newUser(name, kname(name), "", sec.Name)
	u.Spec.RetryInterval = "300ms"
	mustCreate(t, sec, u)
	waitReady(t, u)
	id := u.Status.UserID
	for _, fault := range []struct {
		name string
		code int
	}{{"network error", -1}, {"HTTP 503", 503}} {
		proxy.setFault(id, fault.code)
		start := proxy.probeCount(id)
		sec.Data["OS_PASSWORD"] = []byte("after-" + fault.name)
		if err := k8s.Update(ctx, sec); err != nil {
			t.Fatal(err)
		}
		eventually(t, fault.name+": ReconcileError after failed probes", func() (bool, string) {
			c := readyOf(t, u)
			return c != nil && c.Reason == kv1.ReasonReconcileError && proxy.probeCount(id)-start >= 2, fmt.Sprint(c)
		})
		if n := proxy.passwordWrites(id); n != 0 {
			t.Fatalf("%s: password written %d times", fault.name, n)
		}
	}
	proxy.setFault(id, 0)
	eventually(t, "the password written once Keystone answers", func() (bool, string) {
		c := readyOf(t, u)
		return proxy.passwordWrites(id) == 1 && c != nil && c.Status == metav1.ConditionTrue, fmt.Sprint(c)
	})
	if err := tryLogin(id, "after-HTTP 503"); err != nil {
		t.Errorf("login with the last password: %v", err)
	}
}

// A User naming the admin the controller authenticates as is refused: its
// password is never written (the controller would lock itself out), and
// deleting the resource leaves the account in Keystone.
func TestOwnAdminUserRefused(t *testing.T) {
	if adminID == "" {
		t.Fatal("the admin session reported no user ID")
	}
	ctx := ctxT(t)
	name := uniq(t, "hijack")
	sec := secret(kname(name)+"-pw", map[string]string{"OS_PASSWORD": "hijack-password"})
	u := newUser(stack.Keystone.AdminUser, kname(name), "", sec.Name)
	u.Spec.DeletionPolicy = kv1.DeletionPolicyDelete
	mustCreate(t, sec, u)
	eventually(t, "ReconcileError refusing the controller's own user", func() (bool, string) {
		c := readyOf(t, u)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == kv1.ReasonReconcileError &&
			strings.Contains(c.Message, "authenticates as"), fmt.Sprint(c)
	})
	if n := proxy.passwordWrites(adminID); n != 0 {
		t.Fatalf("the admin's password was written %d times", n)
	}
	if err := tryLogin(adminID, stack.Keystone.AdminPassword); err != nil {
		t.Fatalf("the admin's own password no longer works: %v", err)
	}
	if err := k8s.Delete(ctx, u); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the resource released", func() (bool, string) {
		err := k8s.Get(ctx, client.ObjectKeyFromObject(u), u)
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	if err := tryLogin(adminID, stack.Keystone.AdminPassword); err != nil {
		t.Fatalf("the admin account is gone after deleting the resource: %v", err)
	}
}
