//go:build integration

package keystoneroleassignment

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestForgedUserStatusReachesNoOtherUser: a KeystoneUser whose
// status.userID names another user's id (whoever may write the status
// subresource of the order's cluster can write it) gets the role on its own
// Keystone user, the one of its K-ORC child; the other user's grant, made
// outside orderhub, survives the assignment's deletion (docs/hub.md "Trust").
func TestForgedUserStatusReachesNoOtherUser(t *testing.T) {
	ctx := context.Background()
	ids := sharedFixture(t)
	member := roleID(t, "member")
	dom := testenv.KeystoneDomainID(t, identity, "Default")
	bystander, err := users.Create(ctx, identity, users.CreateOpts{Name: "trust-bystander", DomainID: dom, Password: "not-used-here"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	// Deleting a Keystone user deletes its role assignments too.
	t.Cleanup(func() { _ = users.Delete(context.Background(), identity, bystander.ID).ExtractErr() })
	if err := roles.Assign(ctx, identity, member, roles.AssignOpts{UserID: bystander.ID, ProjectID: ids.projectID}).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	own, err := users.Create(ctx, identity, users.CreateOpts{Name: "trust-forger", DomainID: dom, Password: "not-used-here"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = users.Delete(context.Background(), identity, own.ID).ExtractErr() })
	ku := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "forger", Namespace: tenantNS},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: cpRef}}
	create(t, ku)
	t.Cleanup(func() { _ = kube.Delete(context.Background(), ku) })
	// The forged status: the bystander's id on a user order whose K-ORC
	// User is trust-forger.
	ku.Status = c5c3v1alpha1.KeystoneUserStatus{ObservedGeneration: ku.Generation, UserID: bystander.ID, UserName: bystander.Name, DomainID: dom,
		Conditions: []metav1.Condition{{Type: c5c3v1alpha1.ConditionUserReady, Status: metav1.ConditionTrue,
			Reason: c5c3v1alpha1.ReasonUserProvisioned, Message: "forged by the test", ObservedGeneration: ku.Generation,
			LastTransitionTime: metav1.Now()}}}
	if err := kube.Status().Update(ctx, ku); err != nil {
		t.Fatal(err)
	}
	importUserChild(t, ku.Name, own.Name, own.ID)
	t.Cleanup(func() {
		_ = kube.Delete(context.Background(), &orcv1alpha1.User{ObjectMeta: metav1.ObjectMeta{
			Name: orders.UserChildName("", tenantNS, ku.Name), Namespace: planeNS}})
	})

	ra := assignment("forger-member", "forger", "workflow-project", "member")
	create(t, ra)
	got := waitForReason(t, ra, c5c3v1alpha1.ConditionAssignmentReady, c5c3v1alpha1.ReasonRoleAssigned)
	if got.Status.UserID != own.ID {
		t.Errorf("status.userID %s, want the K-ORC User's %s (not the forged %s)", got.Status.UserID, own.ID, bystander.ID)
	}
	if !granted(t, own.ID, ids.projectID)[member] {
		t.Error("the role is not granted to the order's own Keystone user")
	}
	t.Cleanup(func() { _ = kube.Delete(context.Background(), ra) })
	deleteAndWaitGone(t, ra)
	if granted(t, own.ID, ids.projectID)[member] {
		t.Error("the assignment's deletion left its own grant in Keystone")
	}
	if !granted(t, bystander.ID, ids.projectID)[member] {
		t.Fatal("the assignment's deletion revoked the bystander's grant, named only by the forged status")
	}
	deleteAndWaitGone(t, ku)
}
