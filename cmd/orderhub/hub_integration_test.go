//go:build integration

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/webhooks"
)

// TestIntegration_Hub_SelfRegistersWebhooks runs `orderhub hub
// --webhook-url-base` against a real kube-apiserver and checks that it mints
// its certificate, registers both webhook configurations by URL with
// timeoutSeconds 5 and failurePolicy Fail, that the API server then calls
// them, and that both configurations are gone once the hub's context is
// cancelled (docs/reference/keystoneservice.md, "orderhub: self-registered
// webhooks").
func TestIntegration_Hub_SelfRegistersWebhooks(t *testing.T) {
	st := testenv.ForTest(t, testenv.Options{Kube: true})
	t.Setenv("KUBECONFIG", st.Kube.Kubeconfig)
	port, err := webhooks.FreePort("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- runHubContext(ctx, []string{
			"--leader-elect=false", "--health-probe-bind-address=0", "--metrics-bind-address=0", "--controlplane-reconciler=false", "--keystoneservice-reconciler=false", "--order-reconcilers=false",
			fmt.Sprintf("--webhook-url-base=https://127.0.0.1:%d", port),
			"--webhook-cert-dir=" + t.TempDir(),
		})
	}()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("hub: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("hub did not stop within 30s")
		}
	}
	t.Cleanup(stop)

	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = c5c3v1alpha1.AddToScheme(scheme)
	c, err := client.New(st.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "hub-webhooks"}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	first := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: ns.Name}}
	if err := c.Create(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	second := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp2", Namespace: ns.Name}}
	var last error
	err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-done:
			return false, fmt.Errorf("hub stopped: %v", err)
		default:
		}
		last = c.Create(ctx, second.DeepCopy(), client.DryRunAll)
		return last != nil && strings.Contains(last.Error(), "at most one ControlPlane per namespace"), nil
	})
	if err != nil {
		t.Fatalf("the hub's ControlPlane webhook is not called: %v (last: %v)", err, last)
	}

	ks := &c5c3v1alpha1.KeystoneService{
		ObjectMeta: metav1.ObjectMeta{Name: "workflow", Namespace: ns.Name},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{
			ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp"},
			Account:         &c5c3v1alpha1.KeystoneServiceAccountSpec{Project: c5c3v1alpha1.ServiceAccountProjectSpec{Name: "service-workflow"}},
		},
	}
	if err := c.Create(context.Background(), ks); err != nil {
		t.Fatal(err)
	}
	if ks.Spec.Account.UserName != "workflow" {
		t.Fatalf("the defaulter did not materialize userName: %q", ks.Spec.Account.UserName)
	}

	assertSelfRegistered(t, c)
	stop()
	assertWebhooksGone(t, c)
}

// assertSelfRegistered checks that both self-registered configurations exist
// and every webhook in them carries timeoutSeconds
// webhooks.SelfRegisteredTimeoutSeconds and failurePolicy Fail.
func assertSelfRegistered(t *testing.T, c client.Client) {
	t.Helper()
	ctx := context.Background()
	var m admissionregistrationv1.MutatingWebhookConfiguration
	if err := c.Get(ctx, client.ObjectKey{Name: webhooks.MutatingConfigurationName}, &m); err != nil {
		t.Fatal(err)
	}
	var v admissionregistrationv1.ValidatingWebhookConfiguration
	if err := c.Get(ctx, client.ObjectKey{Name: webhooks.ValidatingConfigurationName}, &v); err != nil {
		t.Fatal(err)
	}
	type hook struct {
		name    string
		timeout *int32
		policy  *admissionregistrationv1.FailurePolicyType
	}
	var hooks []hook
	for _, w := range m.Webhooks {
		hooks = append(hooks, hook{w.Name, w.TimeoutSeconds, w.FailurePolicy})
	}
	for _, w := range v.Webhooks {
		hooks = append(hooks, hook{w.Name, w.TimeoutSeconds, w.FailurePolicy})
	}
	if len(hooks) != 3 {
		t.Fatalf("want 3 webhooks, got %d", len(hooks))
	}
	for _, h := range hooks {
		if h.timeout == nil || *h.timeout != webhooks.SelfRegisteredTimeoutSeconds {
			t.Errorf("%s: timeoutSeconds %v, want %d", h.name, h.timeout, webhooks.SelfRegisteredTimeoutSeconds)
		}
		if h.policy == nil || *h.policy != admissionregistrationv1.Fail {
			t.Errorf("%s: failurePolicy %v, want Fail", h.name, h.policy)
		}
	}
}

// assertWebhooksGone waits until neither self-registered configuration
// exists (the hub removes them before it returns, so the first read
// decides; the wait only absorbs a slow API server).
func assertWebhooksGone(t *testing.T, c client.Client) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "the self-registered webhook configurations are removed", func() error {
		ctx := context.Background()
		if err := c.Get(ctx, client.ObjectKey{Name: webhooks.MutatingConfigurationName}, &admissionregistrationv1.MutatingWebhookConfiguration{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("%s: %v", webhooks.MutatingConfigurationName, err)
		}
		if err := c.Get(ctx, client.ObjectKey{Name: webhooks.ValidatingConfigurationName}, &admissionregistrationv1.ValidatingWebhookConfiguration{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("%s: %v", webhooks.ValidatingConfigurationName, err)
		}
		return nil
	})
}

// hubProcessEnv carries the hub's arguments (newline-separated) into the child
// process TestIntegration_Hub_SIGTERMRemovesWebhooks starts.
const hubProcessEnv = "ORDERHUB_TEST_HUB_ARGS"

// TestHubProcess is not a test: re-executed by
// TestIntegration_Hub_SIGTERMRemovesWebhooks with hubProcessEnv set, it is
// `orderhub hub` (runHub, with its signal handler) in a process of its own.
func TestHubProcess(t *testing.T) {
	args := os.Getenv(hubProcessEnv)
	if args == "" {
		t.Skip("helper process of TestIntegration_Hub_SIGTERMRemovesWebhooks")
	}
	if err := runHub(strings.Split(args, "\n")); err != nil {
		fmt.Fprintln(os.Stderr, "hub:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestIntegration_Hub_SIGTERMRemovesWebhooks runs `orderhub hub
// --webhook-url-base` as a process, waits until the API server calls its
// webhook, sends it SIGTERM, and checks that it exits 0 with both
// configurations removed; a SIGKILLed hub leaves them, and a restarted one
// takes them over and removes them on its own SIGTERM.
func TestIntegration_Hub_SIGTERMRemovesWebhooks(t *testing.T) {
	st := testenv.ForTest(t, testenv.Options{Kube: true})
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = c5c3v1alpha1.AddToScheme(scheme)
	c, err := client.New(st.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "hub-sigterm"}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(context.Background(), &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: ns.Name}}); err != nil {
		t.Fatal(err)
	}
	certDir := t.TempDir()
	start := func() *exec.Cmd {
		port, err := webhooks.FreePort("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"--leader-elect=false", "--health-probe-bind-address=0", "--metrics-bind-address=0",
			"--controlplane-reconciler=false", "--keystoneservice-reconciler=false", "--order-reconcilers=false",
			fmt.Sprintf("--webhook-url-base=https://127.0.0.1:%d", port), "--webhook-cert-dir=" + certDir}
		cmd := exec.Command(os.Args[0], "-test.run=^TestHubProcess$")
		cmd.Env = append(os.Environ(), "KUBECONFIG="+st.Kube.Kubeconfig, hubProcessEnv+"="+strings.Join(args, "\n"))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		// Served: a second ControlPlane is refused by the hub's webhook.
		second := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp2", Namespace: ns.Name}}
		testenv.Eventually(t, 60*time.Second, "the hub's ControlPlane webhook is called", func() error {
			err := c.Create(context.Background(), second.DeepCopy(), client.DryRunAll)
			if err == nil || !strings.Contains(err.Error(), "at most one ControlPlane per namespace") {
				return fmt.Errorf("dry-run create of a second ControlPlane: %v", err)
			}
			return nil
		})
		return cmd
	}

	// SIGKILL: no clean stop, the configurations stay and writes are
	// refused with an error naming the webhook.
	killed := start()
	assertSelfRegistered(t, c)
	if err := killed.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = killed.Wait()
	err = c.Create(context.Background(), &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp3", Namespace: "hub-sigterm"}}, client.DryRunAll)
	// "failed calling webhook": the API server could not reach it (a
	// served webhook's denial names it too, as "denied the request").
	if err == nil || !strings.Contains(err.Error(), "vcontrolplane.c5c3.io") || !strings.Contains(err.Error(), "failed calling webhook") {
		t.Fatalf("a write while the SIGKILLed hub's webhook is registered: want a refusal for failing to call vcontrolplane.c5c3.io, got %v", err)
	}
	t.Logf("after SIGKILL: %v", err)

	// A restarted hub (another port) takes the configurations over; SIGTERM
	// removes them and the process exits 0.
	hub := start()
	assertSelfRegistered(t, c)
	if err := hub.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- hub.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("hub after SIGTERM: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("hub did not exit within 60s of SIGTERM")
	}
	assertWebhooksGone(t, c)
	// With the configurations gone, writes are admitted again (the CRD
	// rules still bind).
	if err := c.Create(context.Background(), &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp3", Namespace: "hub-sigterm"}}, client.DryRunAll); err != nil {
		t.Errorf("a write after the hub's clean stop: %v", err)
	}
}
