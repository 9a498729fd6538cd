//go:build integration

package keystoneuser

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
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
// the KeystoneUser reconciler (on the multicluster manager, without target
// clusters) in-process against it. One External ControlPlane "cp" in
// planeNS points at the stack's Keystone and assigns tenantNS on the
// management cluster; unassignedNS is assigned nowhere. No
// KeystoneApplicationCredential reconciler runs: credential orders are
// plain objects that hold a user's deletion.

const (
	planeNS      = "openstack"
	tenantNS     = "tenant-a"
	unassignedNS = "tenant-unassigned"
	// secondNS is a second assigned namespace (same-name orders across
	// namespaces); consentNS an assigned one whose consent a test withdraws.
	secondNS    = "tenant-b"
	consentNS   = "tenant-c"
	waitTimeout = 3 * time.Minute
	// verifyInterval is the suite's Options.VerifyInterval: a Ready order
	// re-checks its delivered password with Keystone this often.
	verifyInterval = 5 * time.Second
)

// clockOffset shifts the reconciler's clock (Options.Now), so a test can let
// a rotation schedule fall due without waiting for it.
var clockOffset atomic.Int64

// blocked holds the Keystone user names whose password checks the suite's
// Verifier refuses (a test holds a rotation between K-ORC's apply and the
// delivery with it); every other check is a real token request.
var blocked sync.Map

// blockingVerifier is controlplane.KeystoneVerifier, refusing the users in
// blocked.
type blockingVerifier struct{}

func (blockingVerifier) Verify(ctx context.Context, r controlplane.TokenRequest) error {
	if _, ok := blocked.Load(r.User); ok {
		return errors.New("refused by the test (blocked)")
	}
	err := controlplane.KeystoneVerifier{}.Verify(ctx, r)
	verifications.note(r.User, "login", err)
	return err
}

// loginPeriod is the suite's Options.LoginPeriod: long, so a Ready order
// verifies at rest with the cheap check only (atrest.Decide).
const loginPeriod = 24 * time.Hour

var (
	stack    *testenv.Stack
	kube     client.Client
	identity *gophercloud.ServiceClient // the tests' own admin view of Keystone
)

// stackOptions is the hub stack with the workload controllers, so the
// consumers of a delivered Secret roll (consumers_integration_test.go).
func stackOptions() *testenv.Options {
	o := testenv.HubStackOptions()
	o.WorkloadControllers = true
	return &o
}

func TestMain(m *testing.M) {
	os.Exit(testenv.RunHubSuite(m, testenv.HubSuiteOptions{Stack: stackOptions(), Namespaces: []string{tenantNS, unassignedNS, secondNS, consentNS},
		Plane: &testenv.PlaneSeed{Namespace: planeNS, PasswordSecret: controlplane.DefaultPasswordSecret,
			PasswordKey: controlplane.DefaultPasswordKey,
			Spec:        c5c3v1alpha1.ControlPlaneSpec{NamespaceAssignments: allAssigned()}},
	}, setup))
}

// assigned is ns's assignment on the suite's planes: it lists the plane's
// admin domain, where the tests order, and laterDomain, which an assignment
// without domains would close (docs/reference/controlplane.md, "Tenant names").
func assigned(ns string) c5c3v1alpha1.NamespaceAssignment {
	return c5c3v1alpha1.NamespaceAssignment{Namespace: ns,
		Domains: []c5c3v1alpha1.KeystoneName{controlplane.DefaultAdminDomain, laterDomain}}
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
	if err := SetupWithManager(h, Options{Now: func() time.Time { return time.Now().Add(time.Duration(clockOffset.Load())) },
		Verifier: blockingVerifier{}, VerifyInterval: verifyInterval, LoginPeriod: loginPeriod,
		Checker: journaledChecker{}}); err != nil {
		return nil, err
	}
	return h.Manager, nil
}
