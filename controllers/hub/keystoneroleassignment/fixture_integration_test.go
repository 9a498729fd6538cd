//go:build integration

package keystoneroleassignment

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

var cpRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS}

// fixtureIDs are the Keystone ids of the shared user and project.
type fixtureIDs struct{ userID, projectID string }

var (
	fixtureOnce sync.Once
	fixture     fixtureIDs
	fixtureErr  error
)

// sharedFixture provisions, once per suite, the KeystoneUser "workflow" and
// the KeystoneProject "workflow-project" in tenantNS.
//
// The project is ordered from the real KeystoneProject reconciler. The
// KeystoneUser reconciler is not available to this suite (another helper
// writes it concurrently), so the user is created in Keystone with the
// tests' admin client and the KeystoneUser order's status is written by hand
// through the status subresource (UserReady=True/UserProvisioned, userID,
// userName), exactly the fields the assignment reads, and the K-ORC User the
// order would own in the plane's namespace is imported (importUserChild):
// the assignment takes the user's Keystone id from there.
func sharedFixture(t *testing.T) fixtureIDs {
	t.Helper()
	fixtureOnce.Do(func() { fixture, fixtureErr = provision(t) })
	if fixtureErr != nil {
		t.Fatalf("fixture: %v", fixtureErr)
	}
	return fixture
}

func provision(t *testing.T) (fixtureIDs, error) {
	ctx := context.Background()
	kp := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: "workflow-project", Namespace: tenantNS},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: cpRef}}
	if err := kube.Create(ctx, kp); err != nil {
		return fixtureIDs{}, err
	}
	ds, err := testenv.KeystoneAll(ctx, domains.List(identity, domains.ListOpts{Name: "Default"}), domains.ExtractDomains)
	if err != nil {
		return fixtureIDs{}, err
	}
	if len(ds) != 1 {
		return fixtureIDs{}, fmt.Errorf("domain Default: %v", ds)
	}
	u, err := users.Create(ctx, identity, users.CreateOpts{Name: "workflow", DomainID: ds[0].ID, Password: "not-used-here"}).Extract()
	if err != nil {
		return fixtureIDs{}, err
	}
	ku := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "workflow", Namespace: tenantNS},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: cpRef}}
	if err := kube.Create(ctx, ku); err != nil {
		return fixtureIDs{}, err
	}
	ku.Status = c5c3v1alpha1.KeystoneUserStatus{ObservedGeneration: ku.Generation, UserID: u.ID, UserName: u.Name, DomainID: ds[0].ID,
		Conditions: []metav1.Condition{{Type: c5c3v1alpha1.ConditionUserReady, Status: metav1.ConditionTrue,
			Reason: c5c3v1alpha1.ReasonUserProvisioned, Message: "written by the test", ObservedGeneration: ku.Generation,
			LastTransitionTime: metav1.Now()}}}
	if err := kube.Status().Update(ctx, ku); err != nil {
		return fixtureIDs{}, err
	}
	importUserChild(t, ku.Name, u.Name, u.ID)
	var got c5c3v1alpha1.KeystoneProject
	deadline := time.Now().Add(waitTimeout)
	for {
		if err := kube.Get(ctx, client.ObjectKeyFromObject(kp), &got); err != nil {
			return fixtureIDs{}, err
		}
		if meta.IsStatusConditionTrue(got.Status.Conditions, c5c3v1alpha1.ConditionReady) && got.Status.ProjectID != "" {
			break
		}
		if time.Now().After(deadline) {
			return fixtureIDs{}, fmt.Errorf("KeystoneProject not Ready: %+v", got.Status)
		}
		time.Sleep(testenv.PollInterval)
	}
	return fixtureIDs{userID: u.ID, projectID: got.Status.ProjectID}, nil
}

func assignment(name, user, project, role string) *c5c3v1alpha1.KeystoneRoleAssignment {
	return &c5c3v1alpha1.KeystoneRoleAssignment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: tenantNS},
		Spec: c5c3v1alpha1.KeystoneRoleAssignmentSpec{ControlPlaneRef: cpRef, UserRef: c5c3v1alpha1.OrderRef{Name: user},
			ProjectRef: c5c3v1alpha1.OrderRef{Name: project}, Role: c5c3v1alpha1.KeystoneName(role)}}
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := kube.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
}

func deleteAndWaitGone(t *testing.T, obj client.Object) {
	t.Helper()
	if err := kube.Delete(context.Background(), obj); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	waitGone(t, obj)
}

func waitGone(t *testing.T, obj client.Object) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, obj.GetName()+" gone", func() error {
		err := kube.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (finalizers %v, err %v)", obj.GetFinalizers(), err)
	})
}

// waitForReason waits until ra's condition typ reads reason at its current
// generation and returns the order as then read (testenv.WaitForReason).
func waitForReason(t *testing.T, ra *c5c3v1alpha1.KeystoneRoleAssignment, typ, reason string) *c5c3v1alpha1.KeystoneRoleAssignment {
	t.Helper()
	return testenv.WaitForReason(t, kube, waitTimeout, ra,
		func(o *c5c3v1alpha1.KeystoneRoleAssignment) []metav1.Condition { return o.Status.Conditions }, typ, reason)
}

// roleID returns the id of the Keystone role name, creating it unless it
// exists.
func roleID(t *testing.T, name string) string {
	t.Helper()
	return testenv.KeystoneEnsureRole(t, identity, name)
}

// granted lists the role ids Keystone assigns directly to userID on
// projectID (GET /v3/role_assignments).
func granted(t *testing.T, userID, projectID string) map[string]bool {
	t.Helper()
	return testenv.KeystoneAssignedRoles(t, identity, userID, projectID)
}

func waitGranted(t *testing.T, ids fixtureIDs, role string, want bool) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, fmt.Sprintf("role %s granted=%t in Keystone", role, want), func() error {
		if have := granted(t, ids.userID, ids.projectID)[role]; have != want {
			return fmt.Errorf("granted=%t", have)
		}
		return nil
	})
}

// roleImports lists the K-ORC Roles labelled for the assignment name.
func roleImports(t *testing.T, name string) []orcv1alpha1.Role {
	t.Helper()
	var list orcv1alpha1.RoleList
	lbl := orders.ChildLabels(orders.Order{Kind: orders.KindKeystoneRoleAssignment, Namespace: tenantNS, Name: name})
	if err := kube.List(context.Background(), &list, client.InNamespace(planeNS), client.MatchingLabels(lbl)); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// setAllowedRoles rewrites the plane's allowedRoles for tenantNS.
func setAllowedRoles(t *testing.T, rs []c5c3v1alpha1.KeystoneName) {
	t.Helper()
	setAssignments(t, []c5c3v1alpha1.NamespaceAssignment{{Namespace: tenantNS, AllowedRoles: rs, Domains: adminDomain}})
}

// setAssignments rewrites the plane's spec.namespaceAssignments.
func setAssignments(t *testing.T, as []c5c3v1alpha1.NamespaceAssignment) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "update the ControlPlane", func() error {
		var cp c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), client.ObjectKey{Namespace: planeNS, Name: "cp"}, &cp); err != nil {
			return err
		}
		cp.Spec.NamespaceAssignments = as
		return kube.Update(context.Background(), &cp)
	})
}

// touch changes an annotation on ra, forcing a pass.
func touch(t *testing.T, ra *c5c3v1alpha1.KeystoneRoleAssignment, value string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "touch "+ra.Name, func() error {
		var got c5c3v1alpha1.KeystoneRoleAssignment
		if err := kube.Get(context.Background(), client.ObjectKeyFromObject(ra), &got); err != nil {
			return err
		}
		if got.Annotations == nil {
			got.Annotations = map[string]string{}
		}
		got.Annotations["test.orderhub/resync"] = value
		return kube.Update(context.Background(), &got)
	})
}

// importUserChild imports the Keystone user keystoneName (id) as the K-ORC
// User the KeystoneUser order user of tenantNS would own in planeNS.
func importUserChild(t *testing.T, user, keystoneName, id string) {
	t.Helper()
	var cp c5c3v1alpha1.ControlPlane
	if err := kube.Get(context.Background(), types.NamespacedName{Namespace: planeNS, Name: "cp"}, &cp); err != nil {
		t.Fatal(err)
	}
	testenv.ImportKORCUser(t, kube, korc.Child{Name: orders.UserChildName("", tenantNS, user), Namespace: planeNS,
		Credentials: controlplane.Credentials(&cp)}, keystoneName, korc.AdminDomainImportName("cp", controlplane.DefaultAdminDomain), id, waitTimeout)
}
