//go:build integration

package keystoneroleassignment

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// The reason tests of KeystoneRoleAssignment: each AssignmentReady reason
// not shown by the lifecycle tests, caused by a real server (the apiserver
// refusing a request through an admission policy, Keystone refusing the
// grant). hack/reasons lists which test shows which reason.

// korcGroup is K-ORC's API group.
const korcGroup = "openstack.k-orc.cloud"

// waitAssignmentMessage waits until ra's AssignmentReady has reason and a
// message containing want.
func waitAssignmentMessage(t *testing.T, ra *c5c3v1alpha1.KeystoneRoleAssignment, reason, want string) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, "AssignmentReady "+reason+" naming "+want, func() error {
		var got c5c3v1alpha1.KeystoneRoleAssignment
		if err := kube.Get(context.Background(), client.ObjectKeyFromObject(ra), &got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionAssignmentReady)
		if c == nil || c.Reason != reason || c.ObservedGeneration != got.Generation || !strings.Contains(c.Message, want) {
			return fmt.Errorf("AssignmentReady is %+v", c)
		}
		testenv.ObservedCondition(t, &got, *c)
		return nil
	})
}

// touchRoleImports changes an annotation on ra's K-ORC Role imports, so
// K-ORC reconciles them now rather than after its back-off.
func touchRoleImports(t *testing.T, ra *c5c3v1alpha1.KeystoneRoleAssignment) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, "touch the Role imports of "+ra.Name, func() error {
		for _, r := range roleImports(t, ra.Name) {
			p := client.MergeFrom(r.DeepCopy())
			if r.Annotations == nil {
				r.Annotations = map[string]string{}
			}
			r.Annotations["test.orderhub/touch"] = metav1.Now().String()
			if err := kube.Patch(context.Background(), &r, p); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestReasons_RoleImportRefusedByTheAPIServer: while the apiserver refuses
// to create K-ORC Roles in the plane's namespace (an admission policy), the
// order's Role import cannot be applied and AssignmentReady says
// AssignmentError with the apiserver's refusal
// (docs/reference/keystoneroleassignment.md); nothing is granted. Once the
// policy is lifted the role is assigned, and the order deletes.
func TestReasons_RoleImportRefusedByTheAPIServer(t *testing.T) {
	ids := sharedFixture(t)
	member := roleID(t, "member")
	lift := testenv.Refuse(t, kube, testenv.Refusal{Namespace: planeNS, Group: korcGroup, Resources: []string{"roles"}})
	ra := assignment("refused-member", "workflow", "workflow-project", "member")
	create(t, ra)
	waitAssignmentMessage(t, ra, c5c3v1alpha1.ReasonAssignmentError, testenv.RefusalMessage)
	if granted(t, ids.userID, ids.projectID)[member] {
		t.Error("the role is granted while its import is refused")
	}
	lift()
	touch(t, ra, "after-refusal")
	waitForReason(t, ra, c5c3v1alpha1.ConditionAssignmentReady, c5c3v1alpha1.ReasonRoleAssigned)
	waitGranted(t, ids, member, true)
	deleteAndWaitGone(t, ra)
	waitGranted(t, ids, member, false)
}

// TestReasons_RoleImportNotAvailable: the apiserver refuses K-ORC's status
// writes on Roles in the plane's namespace (an admission policy), so the
// order's Role import never reports Available and AssignmentReady says
// WaitingForAssignment (docs/reference/keystoneroleassignment.md); nothing
// is granted. Once the policy is lifted the role is assigned.
func TestReasons_RoleImportNotAvailable(t *testing.T) {
	ids := sharedFixture(t)
	member := roleID(t, "member")
	lift := testenv.Refuse(t, kube, testenv.Refusal{Namespace: planeNS, Group: korcGroup, Resources: []string{"roles/status"},
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update}})
	ra := assignment("pending-member", "workflow", "workflow-project", "member")
	create(t, ra)
	waitForReason(t, ra, c5c3v1alpha1.ConditionAssignmentReady, c5c3v1alpha1.ReasonWaitingForAssignment)
	if granted(t, ids.userID, ids.projectID)[member] {
		t.Error("the role is granted while its import is not Available")
	}
	lift()
	touchRoleImports(t, ra)
	waitForReason(t, ra, c5c3v1alpha1.ConditionAssignmentReady, c5c3v1alpha1.ReasonRoleAssigned)
	deleteAndWaitGone(t, ra)
	waitGranted(t, ids, member, false)
}

// TestReasons_GrantRefusedByKeystone: the KeystoneUser reports a user that
// was deleted from Keystone out of band, so Keystone answers the grant with
// 404, a refusal a retry does not change: AssignmentReady says
// AssignmentFailed with Keystone's answer
// (docs/reference/keystoneroleassignment.md). The order deletes (the
// revoke of a grant Keystone never made is not an error).
func TestReasons_GrantRefusedByKeystone(t *testing.T) {
	ctx := context.Background()
	ids := sharedFixture(t)
	u, err := users.Create(ctx, identity, users.CreateOpts{Name: "reasons-gone", DomainID: testenv.KeystoneDomainID(t, identity, "Default"),
		Password: "not-used-here"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	ku := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "gone", Namespace: tenantNS},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: cpRef}}
	create(t, ku)
	// The status a provisioned KeystoneUser reports (no user reconciler
	// runs in this suite, see sharedFixture).
	ku.Status = c5c3v1alpha1.KeystoneUserStatus{ObservedGeneration: ku.Generation, UserID: u.ID, UserName: u.Name, DomainID: u.DomainID,
		Conditions: []metav1.Condition{{Type: c5c3v1alpha1.ConditionUserReady, Status: metav1.ConditionTrue,
			Reason: c5c3v1alpha1.ReasonUserProvisioned, Message: "written by the test", ObservedGeneration: ku.Generation,
			LastTransitionTime: metav1.Now()}}}
	if err := kube.Status().Update(ctx, ku); err != nil {
		t.Fatal(err)
	}
	importUserChild(t, ku.Name, u.Name, u.ID)
	if err := users.Delete(ctx, identity, u.ID).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	ra := assignment("gone-member", "gone", "workflow-project", "member")
	create(t, ra)
	waitAssignmentMessage(t, ra, c5c3v1alpha1.ReasonAssignmentFailed, "404")
	if len(granted(t, u.ID, ids.projectID)) != 0 {
		t.Error("Keystone lists a grant for the deleted user")
	}
	deleteAndWaitGone(t, ra)
	deleteAndWaitGone(t, ku)
}
