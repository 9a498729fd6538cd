//go:build integration

package keystoneproject

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
	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/testenv"
)

// The suite starts one real stack (Kubernetes with the garbage collector,
// Keystone, OpenBao, K-ORC and ESO) and runs the ControlPlane reconciler and
// the KeystoneProject reconciler (on the multicluster manager, without
// target clusters) in-process against it. One External ControlPlane "cp" in
// planeNS points at the stack's Keystone and assigns tenantNS on the
// management cluster; unassignedNS is assigned nowhere.

const (
	planeNS      = "openstack"
	tenantNS     = "tenant-a"
	unassignedNS = "tenant-unassigned"
	waitTimeout  = 3 * time.Minute
)

var (
	stack    *testenv.Stack
	kube     client.Client
	identity *gophercloud.ServiceClient // the tests' own admin view of Keystone
)

func TestMain(m *testing.M) {
	// The audit log shows which writes reach the children
	// (TestResyncSendsNoApplyForAppliedChildren).
	so := testenv.HubStackOptions()
	so.AuditLog = true
	os.Exit(testenv.RunHubSuite(m, testenv.HubSuiteOptions{Stack: &so, Namespaces: []string{tenantNS, unassignedNS, secondNS},
		Plane: &testenv.PlaneSeed{Namespace: planeNS, PasswordSecret: controlplane.DefaultPasswordSecret,
			PasswordKey: controlplane.DefaultPasswordKey,
			Spec:        c5c3v1alpha1.ControlPlaneSpec{NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{assigned(tenantNS)}}},
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
	// A held deletion looks again only after an hour here: the
	// hold-release tests then pass only when the referencing order's event
	// wakes the project (deletingProjectOf), within their timeout.
	if err := SetupWithManager(h, Options{HeldRequeue: time.Hour}); err != nil {
		return nil, err
	}
	return h.Manager, nil
}

// assigned is ns's assignment on the suite's planes: it lists the plane's
// admin domain, where the tests order, and laterDomain, which a test
// creates in Keystone only after ordering in it; closed to an assignment
// without domains (docs/reference/controlplane.md, "Tenant names").
func assigned(ns string) c5c3v1alpha1.NamespaceAssignment {
	return c5c3v1alpha1.NamespaceAssignment{Namespace: ns, Domains: []c5c3v1alpha1.KeystoneName{controlplane.DefaultAdminDomain, laterDomain}}
}

// laterDomain is the domain the ProbingForCollision case of
// TestReasons_Gates creates.
const laterDomain = "kp-later-domain"
