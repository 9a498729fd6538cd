//go:build integration

package keystoneuser

import (
	"context"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// keystoneDomain creates the enabled Keystone domain name for the test and
// returns its ID; it is disabled and deleted when the test ends.
func keystoneDomain(t *testing.T, name string) string {
	t.Helper()
	d, err := domains.Create(context.Background(), identity, domains.CreateOpts{Name: name, Enabled: ptr.To(true)}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = domains.Update(context.Background(), identity, d.ID, domains.UpdateOpts{Enabled: ptr.To(false)}).Extract()
		_ = domains.Delete(context.Background(), identity, d.ID).ExtractErr()
	})
	return d.ID
}

// TestTenantClosedDomains: secondNS's assignment lists no domains
// (docs/reference/controlplane.md, "Tenant names"). Its orders in the plane's
// admin domain and in the account domain of a KeystoneService of the plane
// are refused with TenantDomainNotAllowed before anything reaches Keystone,
// without naming the KeystoneService; its order in another domain is
// provisioned there. An order provisioned in the admin domain while the
// assignment listed it freezes at the gate keeping its user, and its
// deletion still removes the user.
func TestTenantClosedDomains(t *testing.T) {
	ctx := context.Background()
	const svcDomain, openDomain, svcName = "closed-svc-domain", "closed-open-domain", "closed-domain-svc"
	svcID, openID := keystoneDomain(t, svcDomain), keystoneDomain(t, openDomain)
	ks := &c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Name: svcName, Namespace: planeNS},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp"},
			Account: &c5c3v1alpha1.KeystoneServiceAccountSpec{DomainName: svcDomain,
				Project: c5c3v1alpha1.ServiceAccountProjectSpec{Name: "service"}}}}
	create(t, ks)
	t.Cleanup(func() { _ = kube.Delete(context.Background(), ks) })

	kept := userOrder(secondNS, "closed-kept")
	create(t, kept)
	kept = waitFor(t, kept, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonUserProvisioned)
	as := allAssigned()
	for i := range as {
		if as[i].Namespace == secondNS {
			as[i].Domains = nil
		}
	}
	setAssignments(t, as)
	t.Cleanup(func() { setAssignments(t, allAssigned()) })
	frozen := waitFor(t, kept, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonTenantDomainNotAllowed)
	if u := keystoneUser(t, kept.Name); u == nil || u.ID != kept.Status.UserID || frozen.Status.UserID != kept.Status.UserID {
		t.Fatalf("the frozen order's user changed: Keystone %+v, status %q, was %q", u, frozen.Status.UserID, kept.Status.UserID)
	}

	tenant := editTenant(t, secondNS)
	inAdmin := userOrder(secondNS, "closed-in-admin")
	inService := userOrder(secondNS, "closed-in-service")
	inService.Spec.DomainName = svcDomain
	elsewhere := userOrder(secondNS, "closed-open")
	elsewhere.Spec.DomainName = openDomain
	for _, o := range []*c5c3v1alpha1.KeystoneUser{inAdmin, inService, elsewhere} {
		if err := tenant.Create(ctx, o); err != nil {
			t.Fatalf("a tenant with edit must be able to order in its namespace: %v", err)
		}
	}
	for _, o := range []*c5c3v1alpha1.KeystoneUser{inAdmin, inService} {
		waitFor(t, o, c5c3v1alpha1.ConditionDeliveryReady, c5c3v1alpha1.ReasonTenantDomainNotAllowed)
		got := waitFor(t, o, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonTenantDomainNotAllowed)
		msg := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionUserReady).Message
		if !strings.Contains(msg, "spec.namespaceAssignments[].domains") || strings.Contains(msg, svcName) {
			t.Errorf("%s: the refusal must name the remedy and not the KeystoneService: %s", o.Name, msg)
		}
	}
	waitFor(t, elsewhere, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonUserProvisioned)
	for o, d := range map[*c5c3v1alpha1.KeystoneUser]string{inAdmin: "default", inService: svcID} {
		if got := testenv.KeystoneList(t, users.List(identity, users.ListOpts{Name: o.Name, DomainID: d}), users.ExtractUsers); len(got) != 0 {
			t.Errorf("%s: Keystone has the user despite the refusal: %+v", o.Name, got)
		}
		if n := children(t, o); n != 0 {
			t.Errorf("%s: %d children projected despite the refusal", o.Name, n)
		}
	}
	if got := testenv.KeystoneList(t, users.List(identity, users.ListOpts{Name: elsewhere.Name, DomainID: openID}), users.ExtractUsers); len(got) != 1 {
		t.Errorf("the open domain's order has no user in domain %s: %+v", openDomain, got)
	}

	for _, o := range []*c5c3v1alpha1.KeystoneUser{kept, inAdmin, inService, elsewhere} {
		if err := kube.Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range []*c5c3v1alpha1.KeystoneUser{kept, inAdmin, inService, elsewhere} {
		waitGone(t, o)
	}
	if u := keystoneUser(t, kept.Name); u != nil {
		t.Errorf("the frozen order's deletion left its Keystone user %s", u.ID)
	}
}
