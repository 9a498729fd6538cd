//go:build integration

package keystoneroleassignment

import (
	"context"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestRoleNotAllowed: a role the namespace's allowedRoles does not list is
// refused with the user and project provisioned: no Role import, no grant.
func TestRoleNotAllowed(t *testing.T) {
	ids := sharedFixture(t)
	reader := roleID(t, "reader")
	ra := assignment("workflow-reader", "workflow", "workflow-project", "reader")
	create(t, ra)
	got := waitForReason(t, ra, c5c3v1alpha1.ConditionAssignmentReady, c5c3v1alpha1.ReasonRoleNotAllowed)
	c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionReady)
	if c == nil || c.Reason != c5c3v1alpha1.ReasonNotAllReady {
		t.Fatalf("Ready %+v", c)
	}
	testenv.ObservedCondition(t, got, *c)
	if got.Status.RoleID != "" {
		t.Fatalf("status %+v", got.Status)
	}
	if imps := roleImports(t, ra.Name); len(imps) != 0 {
		t.Fatalf("a refused role was imported: %v", imps)
	}
	if granted(t, ids.userID, ids.projectID)[reader] {
		t.Fatal("a refused role was granted")
	}
	// A credential order of the same user and project does not hold an
	// assignment that never granted its role: the mistaken order can be
	// deleted without deleting the credential (newcomer report: it was
	// stuck at ReferencedByApplicationCredentials).
	ac := &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Name: "refused-role-bystander", Namespace: tenantNS},
		Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{ControlPlaneRef: cpRef,
			UserRef: c5c3v1alpha1.OrderRef{Name: "workflow"}, ProjectRef: c5c3v1alpha1.OrderRef{Name: "workflow-project"}}}
	create(t, ac)
	deleteAndWaitGone(t, ra)
	if err := kube.Delete(context.Background(), ac); err != nil {
		t.Fatal(err)
	}
}

// TestRoleNotFound: an allowed role Keystone does not have reads
// RoleNotFound; nothing is granted.
func TestRoleNotFound(t *testing.T) {
	ids := sharedFixture(t)
	ra := assignment("workflow-missing", "workflow", "workflow-project", "missing-role")
	create(t, ra)
	got := waitForReason(t, ra, c5c3v1alpha1.ConditionAssignmentReady, c5c3v1alpha1.ReasonRoleNotFound)
	if got.Status.RoleID != "" || got.Status.UserID != ids.userID || got.Status.ProjectID != ids.projectID {
		t.Fatalf("status %+v", got.Status)
	}
	if len(granted(t, ids.userID, ids.projectID)) != 0 {
		t.Fatalf("granted %v", granted(t, ids.userID, ids.projectID))
	}
	deleteAndWaitGone(t, ra)
	if imps := roleImports(t, ra.Name); len(imps) != 0 {
		t.Fatalf("the Role import outlived its order: %v", imps)
	}
}

// TestReferenceGates: a missing user or project parks the order at
// UserNotFound / ProjectNotFound.
func TestReferenceGates(t *testing.T) {
	sharedFixture(t)
	noUser := assignment("no-user", "nobody", "workflow-project", "member")
	create(t, noUser)
	waitForReason(t, noUser, c5c3v1alpha1.ConditionAssignmentReady, c5c3v1alpha1.ReasonUserNotFound)
	noProject := assignment("no-project", "workflow", "no-such-project", "member")
	create(t, noProject)
	waitForReason(t, noProject, c5c3v1alpha1.ConditionAssignmentReady, c5c3v1alpha1.ReasonProjectNotFound)
	deleteAndWaitGone(t, noUser)
	deleteAndWaitGone(t, noProject)
}

// TestAssignmentLifecycle: an allowed role is granted and reported; an
// out-of-band revoke is repaired; removing the role from allowedRoles
// freezes the order at RoleNotAllowed and leaves the grant (and roleID);
// a second order granting the same keeps the grant when it is deleted; a
// KeystoneApplicationCredential of the same user and project holds the
// deletion, which revokes the grant once it goes.
func TestAssignmentLifecycle(t *testing.T) {
	ctx := context.Background()
	ids := sharedFixture(t)
	member := roleID(t, "member")
	ra := assignment("workflow-member", "workflow", "workflow-project", "member")
	start := time.Now()
	create(t, ra)
	got := waitForReason(t, ra, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	t.Logf("order created -> Ready: %s", time.Since(start).Round(10*time.Millisecond))
	if c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionAssignmentReady); c.Reason != c5c3v1alpha1.ReasonRoleAssigned {
		t.Fatalf("AssignmentReady %+v", c)
	}
	if got.Status.RoleID != member || got.Status.UserID != ids.userID || got.Status.ProjectID != ids.projectID {
		t.Fatalf("status %+v, want role %s user %s project %s", got.Status, member, ids.userID, ids.projectID)
	}
	if !granted(t, ids.userID, ids.projectID)[member] {
		t.Fatal("Ready but Keystone lists no assignment")
	}

	// Revoked out of band: the next pass (forced by touching the order)
	// grants it again.
	if err := roles.Unassign(ctx, identity, member, roles.UnassignOpts{UserID: ids.userID, ProjectID: ids.projectID}).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	touch(t, ra, "1")
	waitGranted(t, ids, member, true)
	t.Logf("out-of-band revoke -> repaired: %s", time.Since(start).Round(10*time.Millisecond))

	// Consent removed: frozen-like, the assignment stays.
	setAllowedRoles(t, []c5c3v1alpha1.KeystoneName{"missing-role"})
	frozen := waitForReason(t, ra, c5c3v1alpha1.ConditionAssignmentReady, c5c3v1alpha1.ReasonRoleNotAllowed)
	if frozen.Status.RoleID != member {
		t.Fatalf("roleID not kept while not allowed: %+v", frozen.Status)
	}
	if !granted(t, ids.userID, ids.projectID)[member] {
		t.Fatal("removing the role from allowedRoles revoked the assignment")
	}
	setAllowedRoles(t, allowedRoles)
	waitForReason(t, ra, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)

	// The namespace unassigned: frozen, roleID and the grant stay. A
	// revoke out of band while frozen is repaired once the assignment
	// returns.
	setAssignments(t, nil)
	frozen = waitForReason(t, ra, c5c3v1alpha1.ConditionAssignmentReady, c5c3v1alpha1.ReasonNamespaceNotAssigned)
	if frozen.Status.RoleID != member {
		t.Fatalf("roleID not kept while frozen: %+v", frozen.Status)
	}
	if !granted(t, ids.userID, ids.projectID)[member] {
		t.Fatal("unassigning the namespace revoked the assignment")
	}
	if err := roles.Unassign(ctx, identity, member, roles.UnassignOpts{UserID: ids.userID, ProjectID: ids.projectID}).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	setAllowedRoles(t, allowedRoles)
	waitGranted(t, ids, member, true)
	waitForReason(t, ra, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)

	// A second order granting the same: its deletion leaves the grant.
	twin := assignment("workflow-member-twin", "workflow", "workflow-project", "member")
	create(t, twin)
	waitForReason(t, twin, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	deleteAndWaitGone(t, twin)
	if !granted(t, ids.userID, ids.projectID)[member] {
		t.Fatal("deleting one of two orders granting the same revoked it")
	}

	// Held by a credential order of the same user and project. (No
	// credential reconciler runs: the bare object is all the hold reads.)
	ac := &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Name: "workflow-appcred", Namespace: tenantNS},
		Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{ControlPlaneRef: cpRef,
			UserRef: c5c3v1alpha1.OrderRef{Name: "workflow"}, ProjectRef: c5c3v1alpha1.OrderRef{Name: "workflow-project"}}}
	create(t, ac)
	if err := kube.Delete(ctx, ra); err != nil {
		t.Fatal(err)
	}
	waitForReason(t, ra, c5c3v1alpha1.ConditionAssignmentReady, c5c3v1alpha1.ReasonReferencedByApplicationCredentials)
	if !granted(t, ids.userID, ids.projectID)[member] {
		t.Fatal("a held deletion revoked the assignment")
	}
	start = time.Now()
	if err := kube.Delete(ctx, ac); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ra)
	t.Logf("credential deleted -> assignment revoked and released: %s", time.Since(start).Round(10*time.Millisecond))
	if granted(t, ids.userID, ids.projectID)[member] {
		t.Fatal("the deletion left the assignment in Keystone")
	}
	if imps := roleImports(t, ra.Name); len(imps) != 0 {
		t.Fatalf("the Role import outlived its order: %v", imps)
	}
	if roleID(t, "member") != member {
		t.Fatal("the teardown deleted the global role")
	}
}
