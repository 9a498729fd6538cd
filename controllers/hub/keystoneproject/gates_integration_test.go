//go:build integration

package keystoneproject

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
)

// TestReasons_Gates: the ProjectReady reasons of an order that creates
// nothing yet (docs/reference/keystoneproject.md, "Conditions"), each read
// from the apiserver with Ready=False/NotAllReady, and from outside:
// Keystone holds no project of the name.
//
//   - ControlPlaneNotFound: spec.controlPlaneRef names no ControlPlane;
//   - WaitingForAdminCredential: the plane has no admin password Secret
//     (its AdminCredentialReady is WaitingForCloudsYaml);
//   - ProbingForCollision: the order's domain is not in Keystone yet, so
//     K-ORC's import of it waits and the collision probe cannot ask; once
//     the domain is created the project is provisioned in it.
func TestReasons_Gates(t *testing.T) {
	const noAdminNS = "openstack-noadmin"
	create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: noAdminNS}})
	noAdmin := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: noAdminNS},
		Spec: c5c3v1alpha1.ControlPlaneSpec{
			Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
				Mode: c5c3v1alpha1.KeystoneModeExternal, External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: stack.Keystone.URL}}},
			NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{assigned(tenantNS)},
		}}
	create(t, noAdmin)
	// The plane goes once every subtest is done: it assigns tenantNS too.
	t.Cleanup(func() { _ = kube.Delete(context.Background(), noAdmin) })
	for _, tc := range []struct {
		reason, plane string
	}{
		{c5c3v1alpha1.ReasonControlPlaneNotFound, "openstack-absent"},
		{c5c3v1alpha1.ReasonWaitingForAdminCredential, noAdminNS},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			name := "gate-" + strings.ToLower(tc.reason)
			kp := order(tenantNS, name, "", "")
			kp.Spec.ControlPlaneRef.Namespace = tc.plane
			create(t, kp)
			waitForReason(t, kp, c5c3v1alpha1.ConditionProjectReady, tc.reason)
			got := waitForReason(t, kp, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonNotAllReady)
			if got.Status.ProjectID != "" {
				t.Errorf("status.projectID %q on a refused order", got.Status.ProjectID)
			}
			if ps := keystoneProjects(t, name); len(ps) != 0 {
				t.Errorf("Keystone holds projects %v of a refused order", ps)
			}
			deleteOrder(t, kp)
		})
	}
	t.Run(c5c3v1alpha1.ReasonProbingForCollision, func(t *testing.T) {
		t.Parallel()
		const name = "gate-probing"
		kp := order(tenantNS, name, "", "")
		kp.Spec.DomainName = laterDomain
		create(t, kp)
		waitForReason(t, kp, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonProbingForCollision)
		waitForReason(t, kp, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonNotAllReady)
		if ps := keystoneProjects(t, name); len(ps) != 0 {
			t.Errorf("Keystone holds projects %v while the collision probe is unresolved", ps)
		}
		ctx := context.Background()
		d, err := domains.Create(ctx, identity, domains.CreateOpts{Name: laterDomain, Enabled: ptr.To(true)}).Extract()
		if err != nil {
			t.Fatal(err)
		}
		got := waitForReason(t, kp, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonProjectProvisioned)
		if ps := keystoneProjects(t, name); len(ps) != 1 || ps[0].ID != got.Status.ProjectID || ps[0].DomainID != d.ID {
			t.Errorf("Keystone projects named %s: %v, want one with id %s in domain %s", name, ps, got.Status.ProjectID, d.ID)
		}
		deleteOrder(t, kp)
		if _, err := domains.Update(ctx, identity, d.ID, domains.UpdateOpts{Enabled: ptr.To(false)}).Extract(); err == nil {
			_ = domains.Delete(ctx, identity, d.ID).ExtractErr()
		}
	})
}

// deleteOrder deletes kp and waits until it is gone.
func deleteOrder(t *testing.T, kp *c5c3v1alpha1.KeystoneProject) {
	t.Helper()
	if err := kube.Delete(context.Background(), kp); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kp)
}
