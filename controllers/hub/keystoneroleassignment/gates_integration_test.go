//go:build integration

package keystoneroleassignment

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// TestReasons_Gates: the AssignmentReady reasons of an order that grants
// nothing (docs/reference/keystoneroleassignment.md, "Conditions"), each
// read from the apiserver with Ready=False/NotAllReady, and from outside:
// Keystone grants the role to nobody new, and no Role is imported.
//
//   - ControlPlaneNotFound: spec.controlPlaneRef names no ControlPlane;
//   - WaitingForAdminCredential: the plane has no admin password Secret
//     (its AdminCredentialReady is WaitingForCloudsYaml);
//   - ControlPlaneMismatch: the KeystoneUser belongs to that other plane;
//   - WaitingForUser: the KeystoneUser is not provisioned (no reconciler
//     writes its status in this suite). Its status then claims a grant
//     (status.roleID, a field the order's cluster can write) that neither
//     a Role import nor the user's K-ORC child names: deleting the order
//     revokes nothing and says so (Warning RevokeSkipped, "Deletion");
//   - WaitingForProject: the apiserver refuses the KeystoneProject's
//     managed K-ORC Project, so the project is never provisioned.
func TestReasons_Gates(t *testing.T) {
	ids := sharedFixture(t)
	member := roleID(t, "member")
	const noAdminNS = "openstack-noadmin"
	create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: noAdminNS}})
	noAdmin := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: noAdminNS},
		Spec: c5c3v1alpha1.ControlPlaneSpec{
			Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
				Mode: c5c3v1alpha1.KeystoneModeExternal, External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: stack.Keystone.URL}}},
			NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{{Namespace: tenantNS, AllowedRoles: allowedRoles, Domains: adminDomain}},
		}}
	create(t, noAdmin)
	// The plane goes once every subtest is done: it assigns tenantNS too.
	t.Cleanup(func() { _ = kube.Delete(context.Background(), noAdmin) })
	otherPlane := c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: noAdminNS}
	referenced := []client.Object{
		&c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "gate-other-plane-user", Namespace: tenantNS},
			Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: otherPlane}},
		&c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "gate-pending-user", Namespace: tenantNS},
			Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: cpRef}},
	}
	const unprovisioned = "gate-unprovisioned-project"
	testenv.Refuse(t, kube, testenv.Refusal{Namespace: planeNS, Group: "openstack.k-orc.cloud", Resources: []string{"projects"},
		Allow: `object.metadata.name != "` + korc.OrderChildName(korc.InfixProject, "", tenantNS, unprovisioned, korc.DiscProject) + `"`})
	referenced = append(referenced, &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: unprovisioned, Namespace: tenantNS},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: cpRef}})
	for _, o := range referenced {
		create(t, o)
		t.Cleanup(func() { _ = kube.Delete(context.Background(), o) })
	}
	before := granted(t, ids.userID, ids.projectID)

	for _, tc := range []struct {
		reason, user, project string
		plane                 *c5c3v1alpha1.ControlPlaneRefSpec
	}{
		{c5c3v1alpha1.ReasonControlPlaneNotFound, "workflow", "workflow-project", &c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: "openstack-absent"}},
		{c5c3v1alpha1.ReasonWaitingForAdminCredential, "workflow", "workflow-project", &otherPlane},
		{c5c3v1alpha1.ReasonControlPlaneMismatch, "gate-other-plane-user", "workflow-project", nil},
		{c5c3v1alpha1.ReasonWaitingForUser, "gate-pending-user", "workflow-project", nil},
		{c5c3v1alpha1.ReasonWaitingForProject, "workflow", unprovisioned, nil},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			ra := assignment("gate-"+strings.ToLower(tc.reason), tc.user, tc.project, "member")
			if tc.plane != nil {
				ra.Spec.ControlPlaneRef = *tc.plane
			}
			create(t, ra)
			waitForReason(t, ra, c5c3v1alpha1.ConditionAssignmentReady, tc.reason)
			got := waitForReason(t, ra, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonNotAllReady)
			if got.Status.RoleID != "" {
				t.Errorf("status.roleID %q on an order that granted nothing", got.Status.RoleID)
			}
			if imps := roleImports(t, ra.Name); len(imps) != 0 {
				t.Errorf("%d Role imports of an order that cannot grant", len(imps))
			}
			if tc.reason == c5c3v1alpha1.ReasonWaitingForUser {
				claimGrant(t, ra, member)
				deleteAndWaitGone(t, ra)
				waitEvent(t, ra, corev1.EventTypeWarning, "RevokeSkipped")
				return
			}
			deleteAndWaitGone(t, ra)
		})
	}
	t.Cleanup(func() {
		if after := granted(t, ids.userID, ids.projectID); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("the fixture's grants changed from %v to %v", before, after)
		}
	})
}

// claimGrant writes status.roleID = roleID on ra through the status
// subresource and waits until a read shows it (the reconciler keeps it
// while a reference waits: StatusOf).
func claimGrant(t *testing.T, ra *c5c3v1alpha1.KeystoneRoleAssignment, roleID string) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, "status.roleID of "+ra.Name, func() error {
		var got c5c3v1alpha1.KeystoneRoleAssignment
		if err := kube.Get(context.Background(), client.ObjectKeyFromObject(ra), &got); err != nil {
			return err
		}
		if got.Status.RoleID == roleID {
			return nil
		}
		got.Status.RoleID = roleID
		if err := kube.Status().Update(context.Background(), &got); err != nil {
			return err
		}
		return fmt.Errorf("written, not read back yet")
	})
}

// waitEvent waits for an event of eventType and reason on obj.
func waitEvent(t *testing.T, obj client.Object, eventType, reason string) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, "the "+reason+" event on "+obj.GetName(), func() error {
		var events corev1.EventList
		if err := kube.List(context.Background(), &events, client.InNamespace(obj.GetNamespace())); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == obj.GetName() && e.InvolvedObject.Kind == testenv.KindOf(obj) && e.Type == eventType && e.Reason == reason {
				t.Logf("event %s: %s", e.Reason, e.Message)
				testenv.ObservedEvent(t, obj, e.Type, e.Reason)
				return nil
			}
		}
		return fmt.Errorf("no %s %s event among %d", eventType, reason, len(events.Items))
	})
}
