//go:build integration

package keystoneservice

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
	"github.com/c5c3/orderhub/controllers/hub/credentialrotation"
	"github.com/c5c3/orderhub/internal/testenv"
)

// The suite starts one real stack (Kubernetes with the garbage collector,
// Keystone, OpenBao, K-ORC and ESO) and runs the ControlPlane and
// KeystoneService reconcilers in-process against it. One External
// ControlPlane "cp" in planeNS points at the stack's Keystone and admits
// allowedNS.

const (
	planeNS     = "openstack"
	allowedNS   = "team-allowed"
	serviceNS   = "team-horizon" // the plane's dedicated Horizon namespace: consent layer 2
	waitTimeout = 3 * time.Minute
)

var (
	stack    *testenv.Stack
	kube     client.Client
	identity *gophercloud.ServiceClient // the tests' own admin view of Keystone
)

func TestMain(m *testing.M) {
	o := testenv.HubStackOptions()
	o.WorkloadControllers = true // consumers_integration_test.go rolls Deployments
	os.Exit(testenv.RunHubSuite(m, testenv.HubSuiteOptions{Stack: &o, Namespaces: []string{allowedNS, serviceNS, "team-not-allowed"},
		Plane: &testenv.PlaneSeed{Namespace: planeNS, PasswordSecret: controlplane.DefaultPasswordSecret,
			PasswordKey: controlplane.DefaultPasswordKey,
			Spec: c5c3v1alpha1.ControlPlaneSpec{
				Services: c5c3v1alpha1.ServicesSpec{
					Horizon: &c5c3v1alpha1.ServiceHorizonSpec{Namespace: &c5c3v1alpha1.ServiceNamespaceSpec{Name: serviceNS}}},
				KORC: c5c3v1alpha1.KORCSpec{ServiceRegistrations: c5c3v1alpha1.ServiceRegistrationsSpec{AllowedNamespaces: []string{allowedNS}}},
			}},
	}, setup))
}

// setup runs the ControlPlane, KeystoneService and credential rotation
// reconcilers on the manager.
func setup(_ context.Context, s *testenv.HubSuite) (manager.Runnable, error) {
	stack, kube, identity = s.Stack, s.Kube, s.Identity
	if err := controlplane.SetupWithManager(s.Manager, controlplane.Options{RetryInterval: 2 * time.Second, Verifier: suiteVerifier{},
		OpenBao: &controlplane.OpenBao{Address: stack.OpenBao.Addr, Mount: stack.OpenBao.KVMount,
			AuthMount: stack.OpenBao.AuthMount, Role: stack.OpenBao.Role, ServiceAccount: stack.OpenBao.ServiceAccount}}); err != nil {
		return nil, err
	}
	if err := SetupWithManager(s.Manager); err != nil {
		return nil, err
	}
	if err := credentialrotation.SetupWithManager(s.Manager); err != nil {
		return nil, err
	}
	return s.Manager, nil
}

// eventually waits on f with testenv.Eventually.
func eventually(t *testing.T, timeout time.Duration, what string, f func() error) {
	t.Helper()
	testenv.Eventually(t, timeout, what, f)
}
