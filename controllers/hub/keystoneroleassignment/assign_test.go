package keystoneroleassignment

import (
	"context"
	"testing"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// refs takes the user's and the project's Keystone ids from their K-ORC
// children in the plane's namespace, whatever the orders' status says (a
// status forged to name another tenant's user or project grants nothing
// there), and waits while a child reports no id (docs/hub.md "Trust").
func TestRefsTakesIDsFromTheChildren(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{c5c3v1alpha1.AddToScheme, orcv1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	const planeNS, ns, cluster = "openstack", "tenant-a", ""
	plane := c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS}
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: planeNS}}
	user := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "u", Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: plane},
		Status: c5c3v1alpha1.KeystoneUserStatus{UserID: "forged-user", Conditions: []metav1.Condition{
			{Type: c5c3v1alpha1.ConditionUserReady, Status: metav1.ConditionTrue, Reason: c5c3v1alpha1.ReasonUserProvisioned}}}}
	project := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: plane},
		Status: c5c3v1alpha1.KeystoneProjectStatus{ProjectID: "forged-project", ProjectName: "p", Conditions: []metav1.Condition{
			{Type: c5c3v1alpha1.ConditionProjectReady, Status: metav1.ConditionTrue, Reason: c5c3v1alpha1.ReasonProjectProvisioned}}}}
	ra := &c5c3v1alpha1.KeystoneRoleAssignment{ObjectMeta: metav1.ObjectMeta{Name: "ra", Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneRoleAssignmentSpec{ControlPlaneRef: plane, UserRef: c5c3v1alpha1.OrderRef{Name: "u"},
			ProjectRef: c5c3v1alpha1.OrderRef{Name: "p"}, Role: "member"}}
	userChild := func(id *string) client.Object {
		return &orcv1alpha1.User{ObjectMeta: metav1.ObjectMeta{Name: orders.UserChildName(cluster, ns, "u"), Namespace: planeNS},
			Status: orcv1alpha1.UserStatus{ID: id}}
	}
	projectChild := func(id *string) client.Object {
		return &orcv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: orders.ProjectChildName(cluster, ns, "p"), Namespace: planeNS},
			Status: orcv1alpha1.ProjectStatus{ID: id}}
	}
	for _, tc := range []struct {
		name                  string
		children              []client.Object
		wantReason            string
		wantUser, wantProject string
	}{
		{"the children's ids", []client.Object{userChild(ptr.To("real-user")), projectChild(ptr.To("real-project"))}, "", "real-user", "real-project"},
		{"no K-ORC User", []client.Object{projectChild(ptr.To("real-project"))}, c5c3v1alpha1.ReasonWaitingForUser, "", ""},
		{"a K-ORC User without an id", []client.Object{userChild(nil), projectChild(ptr.To("real-project"))}, c5c3v1alpha1.ReasonWaitingForUser, "", ""},
		{"no K-ORC Project", []client.Object{userChild(ptr.To("real-user"))}, c5c3v1alpha1.ReasonWaitingForProject, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			oc := fake.NewClientBuilder().WithScheme(scheme).WithObjects(user.DeepCopy(), project.DeepCopy()).Build()
			local := fake.NewClientBuilder().WithScheme(scheme).WithObjects(tc.children...).Build()
			g, u, p, err := refs(context.Background(), oc, local, ra, cp, cluster)
			if err != nil {
				t.Fatal(err)
			}
			if g.Reason != tc.wantReason || u != tc.wantUser || p != tc.wantProject {
				t.Errorf("refs = %q (%s), user %q, project %q; want %q, %q, %q", g.Reason, g.Message, u, p, tc.wantReason, tc.wantUser, tc.wantProject)
			}
		})
	}
}
