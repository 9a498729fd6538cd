//go:build integration

package controlplane

import (
	"context"
	"os"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/c5c3/orderhub/internal/testenv"
)

// The suite starts one real stack (Kubernetes with the garbage collector,
// Keystone, OpenBao, K-ORC and ESO) and runs the ControlPlane reconciler
// in-process against it; its SecretStores log in to the stack's OpenBao with
// the tenant auth testenv sets up (Kubernetes auth, role and policy).

const (
	waitTimeout = 3 * time.Minute
)

var (
	stack *testenv.Stack
	kube  client.Client
)

func TestMain(m *testing.M) {
	os.Exit(testenv.RunHubSuite(m, testenv.HubSuiteOptions{}, setup))
}

// setup runs the ControlPlane reconciler on the manager.
func setup(_ context.Context, s *testenv.HubSuite) (manager.Runnable, error) {
	stack, kube = s.Stack, s.Kube
	if err := SetupWithManager(s.Manager, Options{
		OpenBao: &OpenBao{Address: stack.OpenBao.Addr, Mount: stack.OpenBao.KVMount,
			AuthMount: stack.OpenBao.AuthMount, Role: stack.OpenBao.Role, ServiceAccount: stack.OpenBao.ServiceAccount},
		RetryInterval: 2 * time.Second,
	}); err != nil {
		return nil, err
	}
	return s.Manager, nil
}

// eventually waits on f with testenv.Eventually.
func eventually(t *testing.T, timeout time.Duration, what string, f func() error) {
	t.Helper()
	testenv.Eventually(t, timeout, what, f)
}
