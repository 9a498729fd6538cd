//go:build integration

package controlplane

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
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
	scheme := runtime.NewScheme()
	must(clientgoscheme.AddToScheme(scheme))
	must(c5c3v1alpha1.AddToScheme(scheme))
	must(orcv1alpha1.AddToScheme(scheme))
	kube, err = client.New(stack.Kube.Config, client.Options{Scheme: scheme})
	must(err)
	must(kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hubNS}}))
	must(kube.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: tokenSecret, Namespace: hubNS},
		Data: map[string][]byte{DefaultOpenBaoTokenKey: []byte(stack.OpenBao.Token)}}))

	mgr, err := ctrl.NewManager(stack.Kube.Config, ctrl.Options{Scheme: scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	must(err)
	must(SetupWithManager(mgr, Options{
		OpenBao: &OpenBao{Address: stack.OpenBao.Addr, Mount: stack.OpenBao.KVMount,
			TokenSecret: types.NamespacedName{Namespace: hubNS, Name: tokenSecret}},
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
