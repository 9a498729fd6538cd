//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/testenv"
)

// The suite starts one real stack (Kubernetes with the garbage collector,
// Keystone, OpenBao, K-ORC and ESO) and runs the ControlPlane reconciler and
// this package's reconciler (on a multicluster manager without target
// clusters) in-process against it. One External ControlPlane "cp" in
// planeNS points at the stack's Keystone and assigns the tests' namespaces.
//
// The KeystoneUser, KeystoneProject and KeystoneRoleAssignment reconcilers
// do not run here: each test prepares their outcome by hand (world.go).

const (
	planeNS     = "openstack"
	waitTimeout = 3 * time.Minute
	// readyResync is the suite's Options.ReadyResync.
	readyResync = 20 * time.Second
	// loginPeriod is the suite's Options.LoginPeriod.
	loginPeriod = 24 * time.Hour
)

var (
	stack    *testenv.Stack
	kube     client.Client
	identity *gophercloud.ServiceClient // the tests' own admin view of Keystone
	// metricsURL is the manager's metrics endpoint (testenv.ServeMetrics).
	metricsURL string
)

func TestMain(m *testing.M) {
	o := testenv.HubStackOptions()
	o.WorkloadControllers = true // consumers_integration_test.go rolls Deployments
	os.Exit(testenv.RunHubSuite(m, testenv.HubSuiteOptions{Stack: &o, Plane: &testenv.PlaneSeed{Namespace: planeNS, PasswordSecret: controlplane.DefaultPasswordSecret,
		PasswordKey: controlplane.DefaultPasswordKey},
	}, setup))
}

// setup runs the ControlPlane reconciler on the manager and the suite's
// order reconcilers on the multicluster manager wrapping it (no targets).
func setup(ctx context.Context, s *testenv.HubSuite) (manager.Runnable, error) {
	stack, kube, identity = s.Stack, s.Kube, s.Identity
	if err := controlplane.SetupWithManager(s.Manager, controlplane.Options{RetryInterval: 2 * time.Second, Verifier: suiteVerifier{},
		OpenBao: &controlplane.OpenBao{Address: stack.OpenBao.Addr, Mount: stack.OpenBao.KVMount,
			AuthMount: stack.OpenBao.AuthMount, Role: stack.OpenBao.Role, ServiceAccount: stack.OpenBao.ServiceAccount}}); err != nil {
		return nil, err
	}
	var err error
	if metricsURL, err = testenv.ServeMetrics(s.Manager); err != nil {
		return nil, err
	}
	h, err := clusters.Wrap(ctx, s.Manager, nil)
	if err != nil {
		return nil, err
	}
	// A short ReadyResync lets the out-of-band deletion test see its
	// verification within seconds (default 10m).
	// A long LoginPeriod leaves the at-rest verification to the cheap check
	// (atrest.Decide); the journal wrappers note each verification.
	if err := SetupWithManager(h, Options{ReadyResync: readyResync, LoginPeriod: loginPeriod,
		Prober: journaledProbe, Checker: journaledChecker{}}); err != nil {
		return nil, err
	}
	return h.Manager, nil
}

// eventually waits on f with testenv.Eventually.
func eventually(t *testing.T, timeout time.Duration, what string, f func() error) {
	t.Helper()
	testenv.Eventually(t, timeout, what, f)
}

// planeReady waits until the ControlPlane's admin credential is ready, the
// shared gate every order reads.
func planeReady(t *testing.T) {
	t.Helper()
	eventually(t, waitTimeout, "ControlPlane cp AdminCredentialReady", func() error {
		var cp c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: planeNS, Name: "cp"}, &cp); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(cp.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady) {
			return fmt.Errorf("conditions %v", cp.Status.Conditions)
		}
		return nil
	})
}
