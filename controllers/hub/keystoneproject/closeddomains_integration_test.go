//go:build integration

package keystoneproject

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"k8s.io/utils/ptr"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestTenantClosedDomains: secondNS's assignment lists no domains
// (docs/reference/controlplane.md, "Tenant names"). Its project in the
// plane's admin domain is refused with TenantDomainNotAllowed before
// anything reaches Keystone; its project in another domain is provisioned
// there.
func TestTenantClosedDomains(t *testing.T) {
	ctx := context.Background()
	const openDomain = "closed-open-project-domain"
	d, err := domains.Create(ctx, identity, domains.CreateOpts{Name: openDomain, Enabled: ptr.To(true)}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = domains.Update(context.Background(), identity, d.ID, domains.UpdateOpts{Enabled: ptr.To(false)}).Extract()
		_ = domains.Delete(context.Background(), identity, d.ID).ExtractErr()
	})
	setAssignments(t, []c5c3v1alpha1.NamespaceAssignment{assigned(tenantNS), {Namespace: secondNS}})
	t.Cleanup(func() { setAssignments(t, []c5c3v1alpha1.NamespaceAssignment{assigned(tenantNS)}) })

	inAdmin := order(secondNS, "closed-in-admin", "", "")
	elsewhere := order(secondNS, "closed-elsewhere", "", "")
	elsewhere.Spec.DomainName = openDomain
	create(t, inAdmin)
	create(t, elsewhere)
	waitForReason(t, inAdmin, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonTenantDomainNotAllowed)
	waitForReason(t, elsewhere, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonProjectProvisioned)
	if ps := keystoneProjects(t, inAdmin.Name); len(ps) != 0 {
		t.Errorf("Keystone has project %s despite the refusal: %+v", inAdmin.Name, ps)
	}
	if cs := children(t, inAdmin); len(cs) != 0 {
		t.Errorf("children projected despite the refusal: %v", cs)
	}
	got := testenv.KeystoneList(t, projects.List(identity, projects.ListOpts{Name: elsewhere.Name, DomainID: d.ID}), projects.ExtractProjects)
	if len(got) != 1 {
		t.Errorf("the open domain's order has no project in domain %s: %+v", openDomain, got)
	}
	for _, o := range []*c5c3v1alpha1.KeystoneProject{inAdmin, elsewhere} {
		if err := kube.Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range []*c5c3v1alpha1.KeystoneProject{inAdmin, elsewhere} {
		waitGone(t, o)
	}
}
