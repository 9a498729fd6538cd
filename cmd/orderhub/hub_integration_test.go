//go:build integration

package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
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
// its certificate, registers both webhook configurations by URL, and that the
// API server then calls them.
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
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("hub: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("hub did not stop within 30s")
		}
	})

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
}
