//go:build integration

package tenant

import (
	"context"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestTenantListedDomainMatchesExactly: the stack's Keystone (SQLite,
// case-sensitive names) holds two domains an administrator created,
// tenant-dom and TENANT-DOM. The namespace's assignment lists only
// tenant-dom. A tenant with edit ordering a project in TENANT-DOM is refused
// with TenantDomainNotAllowed and nothing is created there; a project in
// tenant-dom is admitted (docs/reference/controlplane.md, "Tenant names").
func TestTenantListedDomainMatchesExactly(t *testing.T) {
	ctx := context.Background()
	const ns = caseNS
	enabled := true
	ids := map[string]string{}
	for _, name := range []string{"tenant-dom", "TENANT-DOM"} {
		d, err := domains.Create(ctx, identity, domains.CreateOpts{Name: name, Enabled: &enabled}).Extract()
		if err != nil {
			t.Fatalf("create domain %s as the admin (a case-folding Keystone would refuse the second): %v", name, err)
		}
		ids[name] = d.ID
	}
	assignDomains(t, ns, 60, "tenant-dom")
	tenant := stack.EditTenant(t, kube, orderRolesFile, ns, waitTimeout)
	orders := newOrderSet(t)

	project := func(name, domain string) *c5c3v1alpha1.KeystoneProject {
		return &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: cpRef, DomainName: c5c3v1alpha1.KeystoneName(domain)}}
	}
	other := project("case-other", "TENANT-DOM")
	orders.create(t, tenant, other)
	refused := waitReason(t, other, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonTenantDomainNotAllowed)
	if c := meta.FindStatusCondition(refused.Status.Conditions, c5c3v1alpha1.ConditionProjectReady); !strings.Contains(c.Message, "[tenant-dom]") {
		t.Errorf("ProjectReady message %q does not name the listed domain", c.Message)
	}
	listed := project("case-listed", "tenant-dom")
	orders.create(t, tenant, listed)
	waitReady(t, listed)

	// Keystone: the listed domain holds the admitted project, the other domain nothing.
	for name, want := range map[string]int{"TENANT-DOM": 0, "tenant-dom": 1} {
		ps, err := testenv.KeystoneAll(ctx, projects.List(identity, projects.ListOpts{DomainID: ids[name]}), projects.ExtractProjects)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != want {
			t.Errorf("Keystone domain %s holds %d projects, want %d: %+v", name, len(ps), want, ps)
		}
	}
}
