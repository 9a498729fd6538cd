//go:build integration

package controlplane

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/c5c3/orderhub/internal/testenv"
)

// The suite starts one real stack (Kubernetes with the garbage collector,
// Keystone, OpenBao, K-ORC and ESO) and runs the ControlPlane reconciler
// in-process against it, with the OpenBao token in hubNS.

const (
	hubNS       = "orderhub-system"
	tokenSecret = "openbao-token"
	waitTimeout = 3 * time.Minute
)

var (
	stack *testenv.Stack
	kube  client.Client
)

func TestMain(m *testing.M) { os.Exit(runSuite(m)) }

func runSuite(m *testing.M) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	startCtx, startCancel := context.WithTimeout(ctx, 10*time.Minute)
	defer startCancel()
	var err error
	stack, err = testenv.Start(startCtx, testenv.Options{Kube: true, ControllerManager: true, Keystone: true,
		OpenBao: true, KORC: true, ESO: true})
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting the stack: %v\n", err)
		return 1
	}
	defer func() { _ = stack.Stop() }()

	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	scheme, err := testenv.HubScheme()
	must(err)
	kube, err = client.New(stack.Kube.Config, client.Options{Scheme: scheme})
	must(err)
	token, err := stack.SeedOpenBaoToken(ctx, kube, hubNS, tokenSecret, DefaultOpenBaoTokenKey)
	must(err)

	mgr, err := ctrl.NewManager(stack.Kube.Config, ctrl.Options{Scheme: scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	must(err)
	must(SetupWithManager(mgr, Options{
		OpenBao: &OpenBao{Address: stack.OpenBao.Addr, Mount: stack.OpenBao.KVMount,
			TokenSecret: token},
		RetryInterval: 2 * time.Second,
	}))
	return stack.RunTests(m, mgr)
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// eventually waits on f with testenv.Eventually.
func eventually(t *testing.T, timeout time.Duration, what string, f func() error) {
	t.Helper()
	testenv.Eventually(t, timeout, what, f)
}
