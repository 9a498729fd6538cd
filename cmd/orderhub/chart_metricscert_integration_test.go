//go:build integration

package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/webhooks"
)

// metricsTLS is what the chart renders for one controller's verified scrape
// (metrics.certManager): the ServiceMonitor's tlsConfig and the Certificate
// its CA Secret is issued from.
type metricsTLS struct {
	ServerName, Secret, CAKey string
	DNSNames                  []string
	CertDir                   string // the hub's --metrics-cert-dir, where the Secret is mounted
}

// renderedMetricsTLS reads metricsTLS of the hub from objs and checks that the
// parts agree: the ServiceMonitor verifies (no insecureSkipVerify), its server
// name is one the Certificate is issued for, and the Deployment mounts that
// Certificate's Secret at --metrics-cert-dir.
func renderedMetricsTLS(t *testing.T, objs []rendered) metricsTLS {
	t.Helper()
	sm := find(objs, "ServiceMonitor", "rel-orderhub-hub")
	if sm == nil {
		t.Fatal("no ServiceMonitor rel-orderhub-hub")
	}
	ep := sm.Raw["spec"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)
	tc, _ := ep["tlsConfig"].(map[string]any)
	if ep["scheme"] != "https" || tc["insecureSkipVerify"] != nil {
		t.Fatalf("ServiceMonitor endpoint %v: want https with a verified certificate", ep)
	}
	var m metricsTLS
	m.ServerName, _ = tc["serverName"].(string)
	ca, _ := tc["ca"].(map[string]any)
	sec, _ := ca["secret"].(map[string]any)
	m.Secret, _ = sec["name"].(string)
	m.CAKey, _ = sec["key"].(string)
	if m.ServerName == "" || m.Secret == "" || m.CAKey != "ca.crt" {
		t.Fatalf("ServiceMonitor tlsConfig %v: want serverName and ca.secret {name, key: ca.crt}", tc)
	}
	c := find(objs, "Certificate", m.Secret)
	if c == nil || c.Raw["spec"].(map[string]any)["secretName"] != m.Secret {
		t.Fatalf("no Certificate writing Secret %s", m.Secret)
	}
	for _, n := range c.Raw["spec"].(map[string]any)["dnsNames"].([]any) {
		m.DNSNames = append(m.DNSNames, n.(string))
	}
	d := deployment(t, objs, "hub")
	for _, a := range containerArgs(d) {
		if v, ok := strings.CutPrefix(a, "--metrics-cert-dir="); ok {
			m.CertDir = v
		}
	}
	mounted := false
	for _, vm := range d.Spec.Template.Spec.Containers[0].VolumeMounts {
		for _, v := range d.Spec.Template.Spec.Volumes {
			if vm.MountPath == m.CertDir && v.Name == vm.Name && v.Secret != nil && v.Secret.SecretName == m.Secret {
				mounted = true
			}
		}
	}
	if m.CertDir == "" || !mounted {
		t.Fatalf("the hub does not read Secret %s: --metrics-cert-dir %q, mounts %+v", m.Secret, m.CertDir, d.Spec.Template.Spec.Containers[0].VolumeMounts)
	}
	checkArgsParse(t, d)
	return m
}

// selfSignedCert issues what cert-manager's self-signed Issuer writes into
// the Secret (https://cert-manager.io/docs/configuration/selfsigned/): a
// certificate for dnsNames signed by its own key, which is also its ca.crt.
func selfSignedCert(t *testing.T, dnsNames []string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: dnsNames[0]},
		DNSNames: dnsNames, NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd})
}

// scraperToken is a token of a ServiceAccount bound to the chart's
// <release>-metrics-reader ClusterRole, the binding the chart asks of the scraper.
func scraperToken(t *testing.T, cs kubernetes.Interface, objs []rendered) string {
	t.Helper()
	ctx := context.Background()
	reader := find(objs, "ClusterRole", "rel-orderhub-metrics-reader")
	if reader == nil {
		t.Fatal("no ClusterRole rel-orderhub-metrics-reader")
	}
	role := reader.Typed.(*rbacv1.ClusterRole)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "monitoring"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ServiceAccounts("monitoring").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "prometheus"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "prometheus-orderhub-metrics"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "prometheus", Namespace: "monitoring"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts("monitoring").CreateToken(ctx, "prometheus", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// scrapeVerified GETs https://addr/metrics as Prometheus does with the
// ServiceMonitor's tlsConfig: roots from the CA, the given server name, the
// bearer token; the body must parse as Prometheus text with some metrics.
func scrapeVerified(addr string, roots *x509.CertPool, serverName, token string) error {
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: serverName, MinVersion: tls.VersionTLS12}}}
	req, err := http.NewRequest(http.MethodGet, "https://"+addr+"/metrics", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil || len(fams) == 0 {
		return fmt.Errorf("metrics body: %d families, %v", len(fams), err)
	}
	return nil
}

// TestIntegration_Chart_MetricsCertificateVerified: with metrics.certManager
// the chart's ServiceMonitor verifies the hub's metrics endpoint. The
// certificate cert-manager would issue for the rendered Certificate is put
// where the rendered Deployment reads it, `orderhub hub` serves it, and a
// scrape with the ServiceMonitor's CA and server name and a token bound to
// the chart's metrics-reader ClusterRole succeeds against the real endpoint,
// while another server name fails the handshake.
func TestIntegration_Chart_MetricsCertificateVerified(t *testing.T) {
	objs := mustTemplate(t, "metrics.certManager.enabled=true,metrics.serviceMonitor.enabled=true")
	m := renderedMetricsTLS(t, objs)

	certPEM, keyPEM := selfSignedCert(t, m.DNSNames)
	certDir := t.TempDir()
	for name, b := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM} {
		if err := os.WriteFile(filepath.Join(certDir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	secretCA := certPEM // the Secret's ca.crt (m.CAKey): the certificate itself
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(secretCA) {
		t.Fatal("ca.crt does not parse")
	}

	st := testenv.ForTest(t, testenv.Options{Kube: true})
	t.Setenv("KUBECONFIG", st.Kube.Kubeconfig)
	port, err := webhooks.FreePort("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		// The chart's metrics arguments, with the certificate folder and
		// address of this machine instead of the pod's.
		done <- runHubContext(ctx, []string{"--leader-elect=false", "--health-probe-bind-address=0",
			"--metrics-bind-address=" + addr, "--metrics-secure=true", "--metrics-cert-dir=" + certDir, "--webhooks=false",
			"--controlplane-reconciler=false", "--keystoneservice-reconciler=false", "--order-reconcilers=false"})
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

	token := scraperToken(t, kubernetes.NewForConfigOrDie(st.Kube.Config), objs)
	testenv.Eventually(t, 60*time.Second, "a verified scrape of the hub's metrics endpoint", func() error {
		return scrapeVerified(addr, roots, m.ServerName, token)
	})
	// The check is real: a name the certificate is not issued for fails it.
	err = scrapeVerified(addr, roots, "rel-orderhub-identity-metrics.orderhub-system.svc", token)
	var verr *tls.CertificateVerificationError
	if !errors.As(err, &verr) {
		t.Errorf("a scrape with another server name: %v, want a certificate verification error", err)
	}
}
