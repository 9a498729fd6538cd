//go:build integration

package controlplane

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// The reason tests of ControlPlane AdminCredentialReady: each reason the
// plane writes, caused by a real server (hack/reasons lists which test
// shows which reason).

// tlsKeystone is the stack's Keystone behind a TLS listener with a
// certificate of httptest's own, which no CA bundle trusts until the test
// puts it there.
func tlsKeystone(t *testing.T, keystoneURL string) *httptest.Server {
	t.Helper()
	target, err := url.Parse(keystoneURL)
	if err != nil {
		t.Fatal(err)
	}
	target.Path = ""
	srv := httptest.NewTLSServer(httputil.NewSingleHostReverseProxy(target))
	t.Cleanup(srv.Close)
	return srv
}

func certPEM(srv *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

// otherCertPEM is a self-signed certificate of its own for 127.0.0.1, which
// does not sign the test server's.
func otherCertPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "not-keystone"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// TestReasons_CABundleAndTLS: a plane against a Keystone served over TLS
// (docs/reference/controlplane.md, "AdminCredentialReady") reports
// WaitingForCABundle while its caBundleSecretRef names no Secret,
// TLSVerificationFailed while the bundle holds a certificate that does not
// sign Keystone's, and AdminCredentialReady once it holds the right one.
func TestReasons_CABundleAndTLS(t *testing.T) {
	ctx := context.Background()
	ks := stack.Keystone
	srv := tlsKeystone(t, ks.URL)
	u, _ := url.Parse(ks.URL)
	cp := newPlane(t, "plane-tls", srv.URL+u.Path, ks.AdminPassword)
	const bundle = "keystone-ca"
	if err := retryUpdate(ctx, cp, func(c *c5c3v1alpha1.ControlPlane) {
		c.Spec.Services.Keystone.External.CABundleSecretRef = &c5c3v1alpha1.SecretRefSpec{Name: bundle}
	}); err != nil {
		t.Fatal(err)
	}
	waitForReason(t, cp, c5c3v1alpha1.ReasonWaitingForCABundle)

	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: bundle, Namespace: cp.Namespace},
		Data: map[string][]byte{DefaultCABundleKey: otherCertPEM(t)}}
	if err := kube.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	c := waitForCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonTLSVerificationFailed)
	if !strings.Contains(c.Message, "x509") {
		t.Errorf("TLSVerificationFailed message %q does not name the verification error", c.Message)
	}

	s.Data = map[string][]byte{DefaultCABundleKey: certPEM(srv)}
	if err := kube.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	waitForCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAdminCredentialReady)
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}

// TestReasons_CatalogEndpointMismatch: a plane whose region has no
// identity endpoint in Keystone's catalog authenticates, but finds no
// endpoint to talk to (CatalogEndpointMismatch); once its region is the
// stack's it is AdminCredentialReady.
func TestReasons_CatalogEndpointMismatch(t *testing.T) {
	ctx := context.Background()
	ks := stack.Keystone
	cp := newPlane(t, "plane-region", ks.URL, ks.AdminPassword)
	if err := retryUpdate(ctx, cp, func(c *c5c3v1alpha1.ControlPlane) { c.Spec.Region = "RegionNowhere" }); err != nil {
		t.Fatal(err)
	}
	c := waitForCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonCatalogEndpointMismatch)
	t.Logf("CatalogEndpointMismatch: %s", c.Message)
	if err := retryUpdate(ctx, cp, func(c *c5c3v1alpha1.ControlPlane) { c.Spec.Region = ks.Region }); err != nil {
		t.Fatal(err)
	}
	waitForCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAdminCredentialReady)
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}

// retryUpdate applies mut to the current plane, retrying on conflicts.
func retryUpdate(ctx context.Context, cp *c5c3v1alpha1.ControlPlane, mut func(*c5c3v1alpha1.ControlPlane)) error {
	var err error
	for i := 0; i < 10; i++ {
		var cur c5c3v1alpha1.ControlPlane
		if err = kube.Get(ctx, client.ObjectKeyFromObject(cp), &cur); err != nil {
			return err
		}
		mut(&cur)
		if err = kube.Update(ctx, &cur); err == nil {
			return nil
		}
	}
	return err
}
