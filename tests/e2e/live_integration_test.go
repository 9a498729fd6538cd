//go:build integration

// Package e2e runs the live chainsaw suites of tests/e2e/c5c3 against a real
// stack with the hub's reconcilers and webhooks running in-process.
package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/credentialrotation"
	"github.com/c5c3/orderhub/controllers/hub/keystoneapplicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/keystoneproject"
	"github.com/c5c3/orderhub/controllers/hub/keystoneroleassignment"
	"github.com/c5c3/orderhub/controllers/hub/keystoneservice"
	"github.com/c5c3/orderhub/controllers/hub/keystoneuser"
	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/webhooks"
)

// liveSuites are the chainsaw suites that drive the hub against a live
// identity plane (docs/reference/keystoneservice.md and
// docs/reference/keystoneapplicationcredential.md, "Chainsaw E2E Tests"). They
// share one stack, so each uses Keystone names of its own.
var liveSuites = []string{"keystone-service", "keystone-service-foreign-namespace", "keystone-user"}

const hubNS = "orderhub-system"

// TestIntegration_ChainsawLiveSuites starts the full stack (Kubernetes with
// the garbage collector and namespace controllers, Keystone, OpenBao, K-ORC,
// ESO), runs the hub as `orderhub hub` would (webhooks, ControlPlane,
// KeystoneService and CredentialRotation reconcilers with OpenBao, and the
// order reconcilers KeystoneUser, KeystoneProject, KeystoneRoleAssignment and
// KeystoneApplicationCredential on the multicluster manager) in-process, and
// runs each live suite with chainsaw v0.2.12 ($ORDERHUB_CHAINSAW).
//
// The suites read the stack through the environment Stack.RunChainsaw
// (internal/testenv/chainsaw.go) sets.
func TestIntegration_ChainsawLiveSuites(t *testing.T) {
	bin := testenv.ChainsawBin(t)
	start := time.Now()
	st := testenv.ForTest(t, testenv.Options{Kube: true, ControllerManager: true, Keystone: true,
		OpenBao: true, KORC: true, ESO: true})
	t.Logf("stack up in %s", time.Since(start).Round(time.Second))
	hubLog, direct := startHub(t, st)

	root := e2eDir(t)
	for _, suite := range liveSuites {
		t.Run(suite, func(t *testing.T) { st.RunChainsaw(t, bin, filepath.Join(root, suite)) })
	}
	// After the suites: no OpenBao token or ServiceAccount JWT in the hub's
	// log, the events or the ControlPlane conditions, and no OpenBao token
	// in any Secret (docs/reference/openbao.md).
	ctx := context.Background()
	findings, err := st.AuditCredentials(ctx, direct, hubLog)
	if err != nil {
		t.Fatal(err)
	}
	held, err := st.SecretsHoldingCredentials(ctx, direct)
	if err != nil {
		t.Fatal(err)
	}
	if found := append(findings, held...); len(found) > 0 {
		t.Fatalf("credentials found after the suites:\n%s", strings.Join(found, "\n"))
	}
}

// startHub runs the hub's webhooks and reconcilers against st until the test
// ends, wired as cmd/orderhub's runHubContext wires them: the webhooks and the
// ControlPlane, KeystoneService and CredentialRotation reconcilers on the
// management cluster's manager, the order reconcilers on the multicluster
// manager wrapping it (no target clusters), which is the one started.
func startHub(t *testing.T, st *testenv.Stack) (hubLog string, direct client.Client) {
	t.Helper()
	// The hub logs to a file (from its own goroutines, also after the test
	// ends); its tail is printed when the test fails.
	logPath := filepath.Join(t.TempDir(), "hub.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil {
				t.Logf("hub log (last lines of %s):\n%s", logPath, tailLines(string(b), 40))
			}
		}
	})
	ctrl.SetLogger(zap.New(zap.WriteTo(logFile)))
	scheme, err := testenv.HubScheme()
	if err != nil {
		t.Fatal(err)
	}
	direct, err = client.New(st.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hubNS}}); err != nil {
		t.Fatal(err)
	}

	port, err := webhooks.FreePort("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	urlBase := fmt.Sprintf("https://127.0.0.1:%d", port)
	whOpts, bundle, err := webhooks.URLServerOptions(urlBase, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(st.Kube.Config, ctrl.Options{Scheme: scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		WebhookServer: webhook.NewServer(whOpts)})
	if err != nil {
		t.Fatal(err)
	}
	hub, err := clusters.Wrap(ctx, mgr, nil)
	if err != nil {
		t.Fatal(err)
	}
	steps := []error{
		webhooks.SetupWithManager(mgr),
		mgr.Add(webhooks.Registrar{Client: direct, Server: mgr.GetWebhookServer(), URLBase: urlBase, CABundle: bundle.CACert}),
		controlplane.SetupWithManager(mgr, controlplane.Options{RetryInterval: 2 * time.Second,
			OpenBao: &controlplane.OpenBao{Address: st.OpenBao.Addr, Mount: st.OpenBao.KVMount,
				AuthMount: st.OpenBao.AuthMount, Role: st.OpenBao.Role, ServiceAccount: st.OpenBao.ServiceAccount}}),
		keystoneservice.SetupWithManager(mgr),
		credentialrotation.SetupWithManager(mgr),
		keystoneuser.SetupWithManager(hub, keystoneuser.Options{}),
		keystoneproject.SetupWithManager(hub, keystoneproject.Options{}),
		keystoneroleassignment.SetupWithManager(hub, keystoneroleassignment.Options{}),
		keystoneapplicationcredential.SetupWithManager(hub, keystoneapplicationcredential.Options{}),
	}
	if err := errors.Join(steps...); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- hub.Manager.Start(mctx) }()
	// Registered before testenv's Stop cleanup runs (cleanups run last in,
	// first out), so the manager stops while the API server still answers.
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("hub manager: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("hub manager did not stop within 30s")
		}
	})

	// The API server sees the webhook configurations through an informer:
	// wait until a dry-run create only the validating webhook rejects is
	// rejected, so the suites never race an unregistered webhook.
	probe := &c5c3v1alpha1.KeystoneService{
		ObjectMeta: metav1.ObjectMeta{Name: strings.Repeat("p", 250), Namespace: hubNS},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp"},
			Catalog: &c5c3v1alpha1.KeystoneServiceCatalogSpec{ServiceType: "probe"}},
	}
	testenv.Eventually(t, time.Minute, "the hub's webhooks serve", func() error {
		select {
		case err := <-done:
			t.Fatalf("hub manager stopped: %v", err)
		default:
		}
		err := direct.Create(ctx, probe.DeepCopy(), client.DryRunAll)
		if err != nil && strings.Contains(err.Error(), "metadata.name must be at most") {
			return nil
		}
		return fmt.Errorf("dry-run create: %v", err)
	})
	return logPath, direct
}

// e2eDir is tests/e2e/c5c3, the folder of the live suites beside this file
// (the upstream c5c3 layout, docs/reference/keystoneservice.md).
func e2eDir(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate tests/e2e")
	}
	return filepath.Join(filepath.Dir(file), "c5c3")
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
