//go:build integration

package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/webhooks"
)

// TestIntegration_Hub_RotatesWebhookCertificate runs `orderhub hub
// --webhook-cert-rotation` (the chart's default) against a real
// kube-apiserver, with the test standing in for the kubelet that projects the
// certificate Secret into the pod: the hub fills the empty Secret, patches its
// CA into both webhook configurations, is not ready before the certificate is
// mounted, and then serves the webhooks with a certificate for the Service
// name that chains to that CA.
func TestIntegration_Hub_RotatesWebhookCertificate(t *testing.T) {
	st := testenv.ForTest(t, testenv.Options{Kube: true})
	t.Setenv("KUBECONFIG", st.Kube.Kubeconfig)
	const ns, secretName, svc, mName, vName = "orderhub-system", "hub-webhook-cert", "hub-webhook", "hub-mutating", "hub-validating"
	t.Setenv("POD_NAMESPACE", ns)
	ctx := context.Background()

	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	c, err := client.New(st.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	// What the chart creates: the namespace, the empty Secret and the two
	// configurations calling the Service, without a caBundle.
	path := "/validate"
	fail, none := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone
	cc := admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: ns, Name: svc, Path: &path}}
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"c5c3.io"}, APIVersions: []string{"v1alpha1"}, Resources: []string{"keystoneservices"}},
	}}
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: ns}},
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: mName}, Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "m.test.c5c3.io", ClientConfig: cc, Rules: rules, FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}}},
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: vName}, Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "v.test.c5c3.io", ClientConfig: cc, Rules: rules, FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}}},
	} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}

	webhookPort, err := webhooks.FreePort("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	probePort, err := webhooks.FreePort("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	certDir := t.TempDir()
	hubCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- runHubContext(hubCtx, []string{
			"--leader-elect=false", "--metrics-bind-address=0", "--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(probePort),
			"--controlplane-reconciler=false", "--keystoneservice-reconciler=false", "--order-reconcilers=false",
			"--webhook-port=" + strconv.Itoa(webhookPort), "--webhook-cert-dir=" + certDir,
			"--webhook-cert-rotation", "--webhook-cert-secret=" + secretName, "--webhook-service=" + svc,
			"--webhook-mutating-configuration=" + mName, "--webhook-validating-configuration=" + vName,
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
	poll := func(what string, cond func(ctx context.Context) (bool, error)) {
		t.Helper()
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
			select {
			case err := <-done:
				return false, fmt.Errorf("hub stopped: %v", err)
			default:
			}
			return cond(ctx)
		})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	// The hub fills the Secret.
	var secret corev1.Secret
	poll("the hub writes the certificate Secret", func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: secretName}, &secret); err != nil {
			return false, err
		}
		return len(secret.Data["ca.crt"]) > 0 && len(secret.Data["tls.crt"]) > 0 && len(secret.Data["tls.key"]) > 0, nil
	})
	ca := secret.Data["ca.crt"]

	// Not ready while the certificate is not mounted.
	readyz := fmt.Sprintf("http://127.0.0.1:%d/readyz", probePort)
	poll("the health endpoint answers", func(ctx context.Context) (bool, error) {
		resp, err := http.Get(readyz)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return false, fmt.Errorf("ready before the certificate is mounted")
		}
		return true, nil
	})

	// The CA goes into both configurations.
	poll("the hub injects its CA", func(ctx context.Context) (bool, error) {
		var m admissionregistrationv1.MutatingWebhookConfiguration
		var v admissionregistrationv1.ValidatingWebhookConfiguration
		if err := c.Get(ctx, client.ObjectKey{Name: mName}, &m); err != nil {
			return false, err
		}
		if err := c.Get(ctx, client.ObjectKey{Name: vName}, &v); err != nil {
			return false, err
		}
		return bytes.Equal(m.Webhooks[0].ClientConfig.CABundle, ca) && bytes.Equal(v.Webhooks[0].ClientConfig.CABundle, ca), nil
	})

	// Mount the Secret, as the kubelet does, and the hub becomes ready.
	for _, k := range []string{"ca.crt", "tls.crt", "tls.key"} {
		if err := os.WriteFile(filepath.Join(certDir, k), secret.Data[k], 0o600); err != nil {
			t.Fatal(err)
		}
	}
	poll("the hub becomes ready", func(ctx context.Context) (bool, error) {
		resp, err := http.Get(readyz)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})

	// The webhook server presents a certificate for the Service's name that
	// chains to the injected CA.
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatal("ca.crt holds no certificate")
	}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(webhookPort)),
		&tls.Config{RootCAs: pool, ServerName: svc + "." + ns + ".svc"})
	if err != nil {
		t.Fatalf("TLS to the webhook server as %s.%s.svc: %v", svc, ns, err)
	}
	conn.Close()
}
