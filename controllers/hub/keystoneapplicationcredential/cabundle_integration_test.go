//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestReasons_WaitingForCABundle: the CA bundle Secret a verified plane
// references is deleted, and the plane has not recorded it yet (the
// apiserver refuses the ControlPlane's status writes, holding the window
// between the deletion and the plane's next verification open). A pass of
// the order then reads CredentialReady=WaitingForCABundle
// (docs/reference/keystoneapplicationcredential.md, "Conditions") and
// mints nothing new; the delivered credential keeps authenticating. Once
// the bundle is back the order is Ready again.
func TestReasons_WaitingForCABundle(t *testing.T) {
	ctx := context.Background()
	const plane, ns, bundle = "openstack-cabundle", "reasons-cabundle", "keystone-ca"
	cp := newPlaneIn(t, plane, ns, "")
	ca := func() *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: bundle, Namespace: plane},
			Data: map[string][]byte{controlplane.DefaultCABundleKey: selfSignedPEM(t)}}
	}
	create(t, ca())
	setPlane(t, cp, func(p *c5c3v1alpha1.ControlPlane) {
		p.Spec.Services.Keystone.External.CABundleSecretRef = &c5c3v1alpha1.SecretRefSpec{Name: bundle}
	})
	planeVerified(t, cp)
	w := newWorldOn(t, ns, "cabundle", plane)
	ac := w.order("cabundle", time.Hour, time.Minute)
	ac.Spec.ControlPlaneRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: plane}
	create(t, ac)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	minted := get(t, ac).Status.CredentialID

	lift := testenv.Refuse(t, kube, testenv.Refusal{Namespace: plane, Group: c5c3v1alpha1.GroupVersion.Group,
		Resources: []string{"controlplanes/status"}, Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update}})
	if err := kube.Delete(ctx, ca()); err != nil {
		t.Fatal(err)
	}
	updateOrder(t, ac, func(a *c5c3v1alpha1.KeystoneApplicationCredential) {
		if a.Annotations == nil {
			a.Annotations = map[string]string{}
		}
		a.Annotations["test.orderhub/touch"] = metav1.Now().String()
	})
	waitMessage(t, ac, c5c3v1alpha1.ConditionCredentialReady, c5c3v1alpha1.ReasonWaitingForCABundle, "caBundleSecretRef")
	if creds, err := w.keystoneCredentials(ctx); err != nil || len(creds) != 1 || creds[0].ID != minted {
		t.Errorf("Keystone holds %d credentials of the user (%v), want only the one minted (%s)", len(creds), err, minted)
	}
	if id, err := authDelivered(ctx, ac); err != nil || id != minted {
		t.Errorf("the delivered credential (%s, want %s) fails while the bundle is missing: %v", id, minted, err)
	}

	lift()
	create(t, ca())
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	deleteAndWaitGone(t, ac)
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}

// selfSignedPEM is a self-signed CA certificate for 127.0.0.1 in PEM: a
// well-formed bundle (the plane's Keystone is plain HTTP in this suite, so
// no connection is verified with it).
func selfSignedPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "reasons-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
