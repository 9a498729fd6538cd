//go:build integration

package keystoneroleassignment

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/keystoneproject"
	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/testenv"
)

// The suite starts one real stack (Kubernetes with the garbage collector,
// Keystone, OpenBao, K-ORC and ESO) and runs the ControlPlane reconciler, the
// real KeystoneProject reconciler and the KeystoneRoleAssignment reconciler
// (both on the multicluster manager, without target clusters) in-process
// against it. One External ControlPlane "cp" in planeNS points at the
// stack's Keystone and assigns tenantNS on the management cluster with
// allowedRoles; unassignedNS is assigned nowhere. No KeystoneUser
// reconciler runs (it is written concurrently elsewhere): the tests create
// the Keystone user with their admin client and write the KeystoneUser
// order's status by hand (fixture.go).

const (
	planeNS      = "openstack"
	tenantNS     = "tenant-a"
	unassignedNS = "tenant-unassigned"
	waitTimeout  = 3 * time.Minute
)

// allowedRoles is the plane's allowedRoles for tenantNS: member is granted,
// missing-role is allowed but does not exist in Keystone, reader is not
// allowed.
var allowedRoles = []c5c3v1alpha1.KeystoneName{"member", "missing-role"}

// adminDomain is the plane's admin domain, where the suite's users and
// projects are ordered: closed to an assignment without domains, so
// tenantNS's assignments list it (docs/reference/controlplane.md, "Tenant names").
var adminDomain = []c5c3v1alpha1.KeystoneName{controlplane.DefaultAdminDomain}

var (
	stack    *testenv.Stack
	kube     client.Client
	identity *gophercloud.ServiceClient // the tests' own admin view of Keystone
)

func TestMain(m *testing.M) {
	os.Exit(testenv.RunHubSuite(m, testenv.HubSuiteOptions{Namespaces: []string{tenantNS, unassignedNS},
		Plane: &testenv.PlaneSeed{Namespace: planeNS, PasswordSecret: controlplane.DefaultPasswordSecret,
			PasswordKey: controlplane.DefaultPasswordKey,
			Spec:        c5c3v1alpha1.ControlPlaneSpec{NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{{Namespace: tenantNS, AllowedRoles: allowedRoles, Domains: adminDomain}}}},
	}, setup))
}

// setup runs the ControlPlane reconciler on the manager and the suite's
// order reconcilers on the multicluster manager wrapping it (no targets).
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
	if err := keystoneproject.SetupWithManager(h, keystoneproject.Options{}); err != nil {
		return nil, err
	}
	if err := SetupWithManager(h, Options{}); err != nil {
		return nil, err
	}
	return h.Manager, nil
}
