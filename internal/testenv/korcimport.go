package testenv

import (
	"context"
	"fmt"
	"testing"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/korc"
)

// ImportKORCUser creates child, the K-ORC User a KeystoneUser order owns in
// its plane's namespace (orders.UserChildName), as an import of the Keystone
// user keystoneName in the domain of the K-ORC Domain domainImport, and
// waits up to timeout until K-ORC reports it Available with id wantID: for
// suites that run no KeystoneUser reconciler and stand in for the order
// (the hub reads a user's Keystone id from this child, docs/hub.md "Trust").
func ImportKORCUser(tb testing.TB, c client.Client, child korc.Child, keystoneName, domainImport, wantID string, timeout time.Duration) {
	tb.Helper()
	name := orcv1alpha1.OpenStackName(keystoneName)
	dom := orcv1alpha1.KubernetesNameRef(domainImport)
	createImport(tb, c, korc.ImportUser(child, orcv1alpha1.UserFilter{Name: &name, DomainRef: &dom}), &orcv1alpha1.User{}, wantID, timeout)
}

// ImportKORCProject is ImportKORCUser for the K-ORC Project of a
// KeystoneProject order (orders.ProjectChildName) and the Keystone project
// keystoneName.
func ImportKORCProject(tb testing.TB, c client.Client, child korc.Child, keystoneName, domainImport, wantID string, timeout time.Duration) {
	tb.Helper()
	name := orcv1alpha1.KeystoneName(keystoneName)
	dom := orcv1alpha1.KubernetesNameRef(domainImport)
	createImport(tb, c, korc.ImportProject(child, orcv1alpha1.ProjectFilter{Name: &name, DomainRef: &dom}), &orcv1alpha1.Project{}, wantID, timeout)
}

// createImport creates imp and waits until K-ORC reports it Available with
// id wantID, reading it into got.
func createImport(tb testing.TB, c client.Client, imp client.Object, got interface {
	client.Object
	orcv1alpha1.ObjectWithConditions
}, wantID string, timeout time.Duration) {
	tb.Helper()
	if err := c.Create(context.Background(), imp); err != nil {
		tb.Fatalf("create the K-ORC import %s/%s: %v", imp.GetNamespace(), imp.GetName(), err)
	}
	Eventually(tb, timeout, "the K-ORC import "+imp.GetName()+" is Available", func() error {
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(imp), got); err != nil {
			return err
		}
		if s := korc.StateOf(got); s.Phase != korc.PhaseAvailable || s.ID != wantID {
			return fmt.Errorf("state %+v, want Available with id %s", s, wantID)
		}
		return nil
	})
}
