//go:build integration

package tenant

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/keystoneapplicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/keystoneproject"
	"github.com/c5c3/orderhub/controllers/hub/keystoneroleassignment"
	"github.com/c5c3/orderhub/controllers/hub/keystoneuser"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/testenv"
)

// The suite starts one real stack (Kubernetes with the garbage collector,
// Keystone, OpenBao, K-ORC and ESO) and runs the ControlPlane reconciler and
// the four order reconcilers (KeystoneUser and KeystoneApplicationCredential
// sharing one orders.RotationBudget, as cmd/orderhub wires them) on the
// multicluster manager, without target clusters. One External ControlPlane
// "cp" in planeNS points at the stack's Keystone; each test assigns its own
// namespace with its own budget (assign), so the tests share no bucket.

const (
	planeNS     = "openstack"
	waitTimeout = 3 * time.Minute
	// orderRolesFile is the shipped aggregated ClusterRoles of the order kinds.
	orderRolesFile = "../../config/rbac/aggregate/order_roles.yaml"
	// member and reader are the Keystone roles the tenants may assign.
	member = "member"
	reader = "reader"
)

// The tests' namespaces, one per test.
const (
	refsNS  = "trial-refs"
	churnNS = "trial-churn"
	caseNS  = "trial-case"
	firstNS = "trial-first"
)

var (
	stack    *testenv.Stack
	kube     client.Client
	identity *gophercloud.ServiceClient // the tests' own admin view of Keystone
)

func TestMain(m *testing.M) {
	os.Exit(testenv.RunHubSuite(m, testenv.HubSuiteOptions{Namespaces: []string{refsNS, churnNS, caseNS, firstNS},
		Plane: &testenv.PlaneSeed{Namespace: planeNS, PasswordSecret: controlplane.DefaultPasswordSecret,
			PasswordKey: controlplane.DefaultPasswordKey},
	}, setup))
}

// setup runs the ControlPlane reconciler on the manager and the four order
// reconcilers on the multicluster manager wrapping it (no targets).
func setup(ctx context.Context, s *testenv.HubSuite) (manager.Runnable, error) {
	stack, kube, identity = s.Stack, s.Kube, s.Identity
	if err := controlplane.SetupWithManager(s.Manager, controlplane.Options{RetryInterval: 2 * time.Second,
		OpenBao: &controlplane.OpenBao{Address: stack.OpenBao.Addr, Mount: stack.OpenBao.KVMount,
			AuthMount: stack.OpenBao.AuthMount, Role: stack.OpenBao.Role, ServiceAccount: stack.OpenBao.ServiceAccount}}); err != nil {
		return nil, err
	}
	h, err := clusters.Wrap(ctx, s.Manager, nil)
	if err != nil {
		return nil, err
	}
	budget := orders.NewRotationBudget()
	for _, f := range []func() error{
		func() error { return keystoneuser.SetupWithManager(h, keystoneuser.Options{Budget: budget}) },
		func() error { return keystoneproject.SetupWithManager(h, keystoneproject.Options{}) },
		func() error { return keystoneroleassignment.SetupWithManager(h, keystoneroleassignment.Options{}) },
		func() error {
			return keystoneapplicationcredential.SetupWithManager(h, keystoneapplicationcredential.Options{Budget: budget})
		},
	} {
		if err := f(); err != nil {
			return nil, err
		}
	}
	return h.Manager, nil
}

// assign sets ns's assignment on the management cluster: the plane's admin
// domain, the roles member and reader, and perHour rotations per hour.
func assign(t *testing.T, ns string, perHour int32) {
	t.Helper()
	assignDomains(t, ns, perHour, controlplane.DefaultAdminDomain)
}

// assignDomains is assign listing domains instead of the admin domain.
func assignDomains(t *testing.T, ns string, perHour int32, domains ...c5c3v1alpha1.KeystoneName) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "assign "+ns, func() error {
		var cp c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), client.ObjectKey{Namespace: planeNS, Name: "cp"}, &cp); err != nil {
			return err
		}
		var out []c5c3v1alpha1.NamespaceAssignment
		for _, a := range cp.Spec.NamespaceAssignments {
			if a.Namespace != ns {
				out = append(out, a)
			}
		}
		cp.Spec.NamespaceAssignments = append(out, c5c3v1alpha1.NamespaceAssignment{Namespace: ns,
			Domains:      domains,
			AllowedRoles: []c5c3v1alpha1.KeystoneName{member, reader}, RotationsPerHour: ptr.To(perHour)})
		return kube.Update(context.Background(), &cp)
	})
}

// cpRef is the orders' reference to the suite's plane.
var cpRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS}

// orderSet is the orders a test created as a tenant; newOrderSet deletes
// them (as the admin) when the test ends, dependants first: credentials,
// then role assignments (held while a credential needs their role), then
// projects and users.
type orderSet struct{ objs []client.Object }

// teardownRank orders the kinds for deletion.
func teardownRank(o client.Object) int {
	switch o.(type) {
	case *c5c3v1alpha1.KeystoneApplicationCredential:
		return 0
	case *c5c3v1alpha1.KeystoneRoleAssignment:
		return 1
	case *c5c3v1alpha1.KeystoneProject:
		return 2
	}
	return 3
}

func newOrderSet(t *testing.T) *orderSet {
	s := &orderSet{}
	t.Cleanup(func() {
		for rank := range 4 {
			for _, o := range s.objs {
				if teardownRank(o) == rank {
					deleteAndWaitGone(t, o)
				}
			}
		}
	})
	return s
}

// create creates obj as tenant.
func (s *orderSet) create(t *testing.T, tenant client.Client, obj client.Object) {
	t.Helper()
	if err := tenant.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
	s.objs = append(s.objs, obj)
}

// deleteAndWaitGone deletes obj and waits until the apiserver no longer has it.
func deleteAndWaitGone(t *testing.T, obj client.Object) {
	t.Helper()
	testenv.DeleteAndWaitGone(t, kube, waitTimeout, obj)
}

// conditioned is an order with status conditions.
type conditioned interface {
	client.Object
	*c5c3v1alpha1.KeystoneUser | *c5c3v1alpha1.KeystoneProject | *c5c3v1alpha1.KeystoneRoleAssignment | *c5c3v1alpha1.KeystoneApplicationCredential
}

// conditionsOf returns o's status conditions.
func conditionsOf(o client.Object) []metav1.Condition {
	switch v := o.(type) {
	case *c5c3v1alpha1.KeystoneUser:
		return v.Status.Conditions
	case *c5c3v1alpha1.KeystoneProject:
		return v.Status.Conditions
	case *c5c3v1alpha1.KeystoneRoleAssignment:
		return v.Status.Conditions
	case *c5c3v1alpha1.KeystoneApplicationCredential:
		return v.Status.Conditions
	}
	return nil
}

// waitReason waits until o's condition typ reads reason at o's current
// generation (testenv.WaitForReason) and returns the order as then read.
func waitReason[T conditioned](t *testing.T, o T, typ, reason string) T {
	t.Helper()
	return testenv.WaitForReason(t, kube, waitTimeout, o, func(v T) []metav1.Condition { return conditionsOf(v) }, typ, reason)
}

// readyNow fails the test unless o, read now, is Ready=True.
func readyNow(t *testing.T, o client.Object, what string) {
	t.Helper()
	cur := o.DeepCopyObject().(client.Object)
	if err := kube.Get(context.Background(), client.ObjectKeyFromObject(o), cur); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(conditionsOf(cur), c5c3v1alpha1.ConditionReady); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("%s: %T %s is not Ready: %+v", what, o, o.GetName(), c)
	}
}
