//go:build integration

package consumers

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/credentialrotation"
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/controllers/hub/keystoneapplicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/keystoneproject"
	"github.com/c5c3/orderhub/controllers/hub/keystoneroleassignment"
	"github.com/c5c3/orderhub/controllers/hub/keystoneservice"
	"github.com/c5c3/orderhub/controllers/hub/keystoneuser"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/testenv"
)

// The suite starts the hub stack with a real node (testenv.Options.Node:
// kube-scheduler, containerd, a kubelet; it waits for another stack's node
// to stop; testenv.HubStackOptions adds OpenBao, K-ORC and ESO, which a
// KeystoneService delivers through) and runs the ControlPlane, KeystoneService
// and CredentialRotation reconcilers and the four order reconcilers
// in-process, as cmd/orderhub wires them. One External ControlPlane "cp" in
// planeNS points at the stack's Keystone, assigns podsNS to tenant orders and
// consents to KeystoneServices there (allowedNamespaces), so one namespace
// runs both tests' pods; the plane warns of that tenant namespace's consent
// (docs/reference/keystoneservice.md, "Namespace consent"), which a test may.

const (
	planeNS     = "openstack"
	podsNS      = "pods"
	waitTimeout = 3 * time.Minute
	// nodeWait is how long the suite waits for another stack's node.
	nodeWait = time.Hour
)

var (
	stack    *testenv.Stack
	kube     client.Client
	identity *gophercloud.ServiceClient // the tests' own admin view of Keystone
)

func TestMain(m *testing.M) {
	o := testenv.HubStackOptions()
	o.Node, o.NodeWait = true, nodeWait
	os.Exit(testenv.RunHubSuite(m, testenv.HubSuiteOptions{Stack: &o, Namespaces: []string{podsNS},
		Plane: &testenv.PlaneSeed{Namespace: planeNS, PasswordSecret: controlplane.DefaultPasswordSecret,
			PasswordKey: controlplane.DefaultPasswordKey,
			Spec: c5c3v1alpha1.ControlPlaneSpec{NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{{Namespace: podsNS,
				Domains:      []c5c3v1alpha1.KeystoneName{controlplane.DefaultAdminDomain},
				AllowedRoles: []c5c3v1alpha1.KeystoneName{"member"}, RotationsPerHour: ptr.To[int32](120)}},
				KORC: c5c3v1alpha1.KORCSpec{ServiceRegistrations: c5c3v1alpha1.ServiceRegistrationsSpec{AllowedNamespaces: []string{podsNS}}}}},
	}, setup))
}

// setup runs the ControlPlane, KeystoneService and CredentialRotation
// reconcilers on the manager and the four order reconcilers on the
// multicluster manager wrapping it (no targets).
func setup(ctx context.Context, s *testenv.HubSuite) (manager.Runnable, error) {
	stack, kube, identity = s.Stack, s.Kube, s.Identity
	if err := controlplane.SetupWithManager(s.Manager, controlplane.Options{RetryInterval: 2 * time.Second,
		OpenBao: &controlplane.OpenBao{Address: stack.OpenBao.Addr, Mount: stack.OpenBao.KVMount,
			AuthMount: stack.OpenBao.AuthMount, Role: stack.OpenBao.Role, ServiceAccount: stack.OpenBao.ServiceAccount}}); err != nil {
		return nil, err
	}
	if err := keystoneservice.SetupWithManager(s.Manager, keystoneservice.Options{Granter: grants.Keystone{Sessions: &grants.Sessions{}}}); err != nil {
		return nil, err
	}
	if err := credentialrotation.SetupWithManager(s.Manager); err != nil {
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
