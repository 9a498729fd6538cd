//go:build integration

package keystoneservice

import (
	"context"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// The reason tests of KeystoneService: each condition reason the
// registration writes, caused by a real server where one can be made
// (hack/reasons lists which test shows which reason).

// frontRegion is the Keystone region in which the identity front is the
// catalog's identity endpoint; the stack's own endpoints are in
// stack.Keystone.Region.
const frontRegion = "RegionFront"

// newPlane creates namespace ns, the admin password Secret (unless
// password is empty) and an External ControlPlane "cp" there that
// authenticates at the stack's Keystone, in region ("": the default).
func newPlane(t *testing.T, ns, password, region string) *c5c3v1alpha1.ControlPlane {
	t.Helper()
	ctx := context.Background()
	if err := kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	if password != "" {
		if err := kube.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: controlplane.DefaultPasswordSecret, Namespace: ns},
			Data: map[string][]byte{controlplane.DefaultPasswordKey: []byte(password)}}); err != nil {
			t.Fatal(err)
		}
	}
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: ns},
		Spec: c5c3v1alpha1.ControlPlaneSpec{Region: region, Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
			Mode: c5c3v1alpha1.KeystoneModeExternal, External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: stack.Keystone.URL}}}}}
	if err := kube.Create(ctx, cp); err != nil {
		t.Fatal(err)
	}
	return cp
}

// planeCondition waits until cp's condition typ has reason.
func planeCondition(t *testing.T, cp *c5c3v1alpha1.ControlPlane, typ, reason string) {
	t.Helper()
	eventually(t, waitTimeout, "ControlPlane "+typ+" "+reason, func() error {
		var got c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: cp.Namespace, Name: cp.Name}, &got); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(got.Status.Conditions, typ); c == nil || c.Reason != reason {
			return fmt.Errorf("condition is %+v", c)
		}
		return nil
	})
}

// waitForMessage waits until ks's condition typ has reason at the current
// generation and a message containing want.
func waitForMessage(t *testing.T, ks *c5c3v1alpha1.KeystoneService, typ, reason, want string) {
	t.Helper()
	eventually(t, waitTimeout, typ+" "+reason+" naming "+want, func() error {
		var got c5c3v1alpha1.KeystoneService
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: ks.Namespace, Name: ks.Name}, &got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, typ)
		if c == nil || c.Reason != reason || c.ObservedGeneration != got.Generation || !strings.Contains(c.Message, want) {
			return fmt.Errorf("condition is %+v at generation %d", c, got.Generation)
		}
		testenv.ObservedCondition(t, &got, *c)
		return nil
	})
}

// conditionMessage reads ks's condition typ's message.
func conditionMessage(t *testing.T, ks *c5c3v1alpha1.KeystoneService, typ string) string {
	t.Helper()
	var got c5c3v1alpha1.KeystoneService
	if err := kube.Get(context.Background(), types.NamespacedName{Namespace: ks.Namespace, Name: ks.Name}, &got); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, typ); c != nil {
		return c.Message
	}
	return ""
}

// TestReasons_CatalogFailed: the identity endpoint the catalog names
// drops the connection of every create without an answer (reads pass, so
// the plane's domain import and the collision probes resolve): K-ORC v2.6.0
// marks a create that never got an HTTP answer as terminal
// (InvalidConfiguration) and stops retrying, and CatalogReady says
// CatalogFailed, AccountReady ServiceAccountsFailed, with K-ORC's message
// (docs/reference/keystoneservice.md, "Conditions"), also once the endpoint
// answers again. The plane stays AdminCredentialReady: it authenticates at
// authURL and only locates the catalog endpoint. Deleting the registration
// releases it (the Service never got an id). (With the endpoint down
// altogether the plane's domain import goes unready as soon as K-ORC
// re-reads it, and the account's probes wait on it instead.)
func TestReasons_CatalogFailed(t *testing.T) {
	ctx := context.Background()
	const ns, typ = "openstack-front", "front-it"
	front := testenv.NewIdentityFront(t, stack.Keystone.URL)
	front.RegisterIn(t, identity, frontRegion)
	cp := newPlane(t, ns, stack.Keystone.AdminPassword, frontRegion)
	planeCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, c5c3v1alpha1.ReasonAdminCredentialReady)
	// The plane's admin domain import resolves through the front while it
	// forwards: the account's probes wait for it.
	eventually(t, waitTimeout, "the plane's domain import is Available", func() error {
		var d orcv1alpha1.Domain
		if err := kube.Get(ctx, types.NamespacedName{Namespace: ns,
			Name: korc.AdminDomainImportName(cp.Name, controlplane.DefaultAdminDomain)}, &d); err != nil {
			return err
		}
		if s := korc.StateOf(&d); s.Phase != korc.PhaseAvailable {
			return fmt.Errorf("state %+v", s)
		}
		return nil
	})

	front.Drop(http.MethodPost, "")
	ks := registration(ns, "front", typ, false, map[string]string{"public": "http://front.example"})
	ks.Spec.ControlPlaneRef.Namespace = ""
	ks.Spec.Account = accountRegistration(ns, "front", "reasons-front", true).Spec.Account
	ks.Spec.Account.UserName = "reasons-front-user"
	create(t, ks)
	waitForMessage(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonCatalogFailed, "EOF")
	waitForMessage(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonServiceAccountsFailed, "EOF")
	planeCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, c5c3v1alpha1.ReasonAdminCredentialReady)
	front.Forward()
	// Terminal: nothing retries once the endpoint is back (a later pass of
	// the registration still reads the failure).
	update(t, ks, func(k *c5c3v1alpha1.KeystoneService) {
		if k.Annotations == nil {
			k.Annotations = map[string]string{}
		}
		k.Annotations["test.orderhub/recheck"] = "1"
	})
	waitForCondition(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonCatalogFailed)
	if n := len(keystoneServices(t, typ)); n != 0 {
		t.Errorf("%d %s services in Keystone, want none", n, typ)
	}
	deleteAndWaitGone(t, ks, typ)
	if u := keystoneUser(t, "reasons-front-user"); u != nil {
		t.Errorf("the account's user %s is in Keystone", u.ID)
	}
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}

// TestReasons_TLSVerificationFailedOnTheCatalog: the plane's authURL moves
// to a TLS front of Keystone whose certificate the hub trusts (it is in
// the hub process's system roots, SSL_CERT_FILE) and K-ORC does not (its
// process has the machine's roots): the plane's admin credential check
// passes, K-ORC cannot build a client, and a new endpoint row reports the
// classified TLSVerificationFailed on CatalogReady
// (docs/reference/keystoneservice.md, "Conditions"), not a bounded wait.
// With authURL back on the plain endpoint the row registers.
//
// The hub's trust store differs from K-ORC's as between two images; the
// test sets SSL_CERT_FILE before the hub first loads its system roots (Go
// loads them once, on the first verification without a CA bundle); if an
// earlier test had loaded them, the plane reports TLSVerificationFailed
// itself and the test fails there, naming that.
func TestReasons_TLSVerificationFailedOnTheCatalog(t *testing.T) {
	ctx := context.Background()
	const ns, typ = "openstack-tls", "tls-it"
	target, _ := url.Parse(stack.Keystone.URL)
	path := target.Path
	target.Path = ""
	srv := httptest.NewTLSServer(httputil.NewSingleHostReverseProxy(target))
	t.Cleanup(srv.Close)
	roots := filepath.Join(t.TempDir(), "hub-roots.pem")
	if err := os.WriteFile(roots, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", roots)

	cp := newPlane(t, ns, stack.Keystone.AdminPassword, "")
	planeCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, c5c3v1alpha1.ReasonAdminCredentialReady)
	ks := registration(ns, "tls", typ, false, map[string]string{"public": "http://tls.example"})
	ks.Spec.ControlPlaneRef.Namespace = ""
	create(t, ks)
	waitForCondition(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonCatalogRegistered)

	setAuthURL := func(u string) {
		t.Helper()
		eventually(t, waitTimeout, "set the plane's authURL", func() error {
			var cur c5c3v1alpha1.ControlPlane
			if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: cp.Name}, &cur); err != nil {
				return err
			}
			cur.Spec.Services.Keystone.External.AuthURL = u
			return kube.Update(ctx, &cur)
		})
	}
	setAuthURL(srv.URL + path)
	eventually(t, waitTimeout, "the plane verified the TLS authURL", func() error {
		var got c5c3v1alpha1.ControlPlane
		if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: cp.Name}, &got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady)
		if c == nil || c.ObservedGeneration != got.Generation || c.Reason != c5c3v1alpha1.ReasonAdminCredentialReady {
			return fmt.Errorf("AdminCredentialReady %+v at generation %d", c, got.Generation)
		}
		return nil
	})
	update(t, ks, func(k *c5c3v1alpha1.KeystoneService) {
		k.Spec.Catalog.Endpoints = append(k.Spec.Catalog.Endpoints,
			c5c3v1alpha1.KeystoneServiceEndpointSpec{Interface: "internal", URL: "http://tls-internal.example"})
	})
	waitForMessage(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonTLSVerificationFailed, "x509")
	planeCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, c5c3v1alpha1.ReasonAdminCredentialReady)

	setAuthURL(stack.Keystone.URL)
	waitForCondition(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonCatalogRegistered)
	deleteAndWaitGone(t, ks, typ)
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}

// TestReasons_WaitingForServiceAccounts: an account whose project is to be
// used, not created (project.create: false), and does not exist in
// Keystone: K-ORC's import of it waits for the project to appear, and
// AccountReady says WaitingForServiceAccounts naming it; once the project
// is created in Keystone the account is provisioned, and the registration,
// which declares no catalog block, reports CatalogNotDeclared.
func TestReasons_WaitingForServiceAccounts(t *testing.T) {
	ctx := context.Background()
	const project = "reasons-later-project"
	ks := accountRegistration(allowedNS, "waits-for-project", project, false)
	ks.Spec.Account.UserName = "reasons-later-user"
	create(t, ks)
	waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonWaitingForServiceAccounts)
	t.Logf("AccountReady: %s", conditionMessage(t, ks, c5c3v1alpha1.ConditionAccountReady))
	p, err := projects.Create(ctx, identity, projects.CreateOpts{Name: project, DomainID: "default"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = projects.Delete(context.Background(), identity, p.ID).ExtractErr() })
	waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonAccountProvisioned)
	// No catalog block: CatalogReady is True without a catalog row.
	waitForCondition(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonCatalogNotDeclared)
	waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	if err := kube.Delete(ctx, ks); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, "the account's user is gone from Keystone", func() error {
		if u := keystoneUser(t, "reasons-later-user"); u != nil {
			return fmt.Errorf("user %s still there", u.Name)
		}
		return nil
	})
}

// TestReasons_ChildRefusedByTheAPIServer: the apiserver refuses to create
// K-ORC Services and Users in the plane's namespace (an admission policy),
// so the registration's catalog and account children cannot be applied:
// CatalogReady says CatalogError and AccountReady ServiceAccountError, each
// with the apiserver's refusal (docs/reference/keystoneservice.md,
// "Conditions"). Once the policy is lifted the registration is provisioned.
func TestReasons_ChildRefusedByTheAPIServer(t *testing.T) {
	ctx := context.Background()
	const ns, typ = "openstack-refused", "refused-it"
	cp := newPlane(t, ns, stack.Keystone.AdminPassword, "")
	planeCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, c5c3v1alpha1.ReasonAdminCredentialReady)
	lift := testenv.Refuse(t, kube, testenv.Refusal{Namespace: ns, Group: "openstack.k-orc.cloud", Resources: []string{"services", "users"}})
	ks := registration(ns, "refused", typ, false, map[string]string{"public": "http://refused.example"})
	ks.Spec.ControlPlaneRef.Namespace = ""
	ks.Spec.Account = accountRegistration(ns, "refused", "reasons-refused", true).Spec.Account
	ks.Spec.Account.UserName = "reasons-refused-user"
	create(t, ks)
	waitForMessage(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonCatalogError, testenv.RefusalMessage)
	waitForMessage(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonServiceAccountError, testenv.RefusalMessage)
	if n := len(keystoneServices(t, typ)); n != 0 {
		t.Errorf("%d %s services in Keystone while the apiserver refuses the children", n, typ)
	}
	lift()
	waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	deleteAndWaitGone(t, ks, typ)
	eventually(t, waitTimeout, "the account's user is gone from Keystone", func() error {
		if u := keystoneUser(t, "reasons-refused-user"); u != nil {
			return fmt.Errorf("user %s still there", u.Name)
		}
		return nil
	})
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}

// rotationReady waits until cr's Ready condition has reason.
func rotationReady(t *testing.T, cr *c5c3v1alpha1.CredentialRotation, reason string) {
	t.Helper()
	eventually(t, waitTimeout, "CredentialRotation "+cr.Name+" Ready "+reason, func() error {
		var got c5c3v1alpha1.CredentialRotation
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: cr.Namespace, Name: cr.Name}, &got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionReady)
		if c == nil || c.Reason != reason {
			return fmt.Errorf("Ready is %+v", c)
		}
		testenv.ObservedCondition(t, &got, *c)
		return nil
	})
}

func rotation(ns, name, keystoneService string, target c5c3v1alpha1.CredentialRotationTarget) *c5c3v1alpha1.CredentialRotation {
	return &c5c3v1alpha1.CredentialRotation{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: c5c3v1alpha1.CredentialRotationSpec{Target: target, KeystoneService: keystoneService}}
}

// TestReasons_WaitingForAdminCredential: a registration on a plane whose
// admin password Secret does not exist yet (the plane reports
// WaitingForCloudsYaml) waits on both blocks (WaitingForAdminCredential)
// and registers nothing; a CredentialRotation of its account waits for a
// first password (WaitingForServiceAccount). Once the Secret is created the
// registration is provisioned and the rotation fires (RotationTriggered).
// The registration declares account.rotation.mode Scheduled and the
// rotation intervalDays, which are accepted and deferred: each records a
// ScheduledRotationDeferred Normal event (docs/reference/keystoneservice.md,
// "ServiceAccountRotationSpec"; docs/reference/credentialrotation.md).
func TestReasons_WaitingForAdminCredential(t *testing.T) {
	ctx := context.Background()
	const ns = "openstack-nopassword"
	cp := newPlane(t, ns, "", "")
	planeCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, c5c3v1alpha1.ReasonWaitingForCloudsYaml)
	ks := registration(ns, "waits", "waits-it", false, map[string]string{"public": "http://waits.example"})
	ks.Spec.ControlPlaneRef.Namespace = ""
	ks.Spec.Account = accountRegistration(ns, "waits", "reasons-waits", true).Spec.Account
	ks.Spec.Account.UserName = "reasons-waits-user"
	ks.Spec.Account.Rotation = &c5c3v1alpha1.ServiceAccountRotationSpec{Mode: c5c3v1alpha1.RotationModeScheduled}
	create(t, ks)
	waitForCondition(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonWaitingForAdminCredential)
	waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonWaitingForAdminCredential)
	waitEvent(t, ks, corev1.EventTypeNormal, c5c3v1alpha1.EventScheduledRotationDeferred)
	if n := len(keystoneServices(t, "waits-it")); n != 0 {
		t.Errorf("%d catalog services registered while the plane has no admin credential", n)
	}
	rot := rotation(ns, "waits-rotation", ks.Name, c5c3v1alpha1.CredentialRotationTargetServiceAccountPassword)
	intervalDays := int32(30)
	rot.Spec.IntervalDays = &intervalDays
	create(t, rot)
	rotationReady(t, rot, c5c3v1alpha1.ReasonWaitingForServiceAccount)

	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: controlplane.DefaultPasswordSecret, Namespace: ns},
		Data: map[string][]byte{controlplane.DefaultPasswordKey: []byte(stack.Keystone.AdminPassword)}})
	waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	rotationReady(t, rot, c5c3v1alpha1.ReasonRotationTriggered)
	waitEvent(t, rot, corev1.EventTypeNormal, c5c3v1alpha1.EventScheduledRotationDeferred)
	eventually(t, waitTimeout, "the rotation delivers password generation 2", func() error {
		var cur c5c3v1alpha1.KeystoneService
		if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: ks.Name}, &cur); err != nil {
			return err
		}
		if cur.Status.Account == nil || cur.Status.Account.PasswordGeneration < 2 {
			return fmt.Errorf("status.account %+v", cur.Status.Account)
		}
		return nil
	})
	if err := kube.Delete(ctx, rot); err != nil {
		t.Fatal(err)
	}
	deleteAndWaitGone(t, ks, "waits-it")
	eventually(t, waitTimeout, "the account's user is gone from Keystone", func() error {
		if u := keystoneUser(t, "reasons-waits-user"); u != nil {
			return fmt.Errorf("user %s still there", u.Name)
		}
		return nil
	})
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}

// TestReasons_CredentialRotationRefusals: a CredentialRotation the hub
// cannot serve says why and nudges nothing (docs/reference/credentialrotation.md,
// "Status"): a target other than serviceAccountPassword, or one without
// spec.keystoneService (UnsupportedTarget); a KeystoneService that does not
// exist (KeystoneServiceNotFound); one without an account block
// (UnknownServiceAccount).
func TestReasons_CredentialRotationRefusals(t *testing.T) {
	ctx := context.Background()
	catalogOnly := registration(allowedNS, "rot-catalog-only", "rot-catalog-it", false, map[string]string{"public": "http://rot.example"})
	create(t, catalogOnly)
	waitForCondition(t, catalogOnly, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	for _, tc := range []struct {
		rot    *c5c3v1alpha1.CredentialRotation
		reason string
	}{
		{rotation(allowedNS, "rot-admin-ac", "", c5c3v1alpha1.CredentialRotationTargetAdminApplicationCredential),
			c5c3v1alpha1.ReasonUnsupportedTarget},
		{rotation(allowedNS, "rot-no-service", "", c5c3v1alpha1.CredentialRotationTargetServiceAccountPassword),
			c5c3v1alpha1.ReasonUnsupportedTarget},
		{rotation(allowedNS, "rot-absent", "absent", c5c3v1alpha1.CredentialRotationTargetServiceAccountPassword),
			c5c3v1alpha1.ReasonKeystoneServiceNotFound},
		{rotation(allowedNS, "rot-no-account", catalogOnly.Name, c5c3v1alpha1.CredentialRotationTargetServiceAccountPassword),
			c5c3v1alpha1.ReasonUnknownServiceAccount},
	} {
		if tc.rot.Spec.KeystoneService == "" && tc.rot.Spec.Target == c5c3v1alpha1.CredentialRotationTargetServiceAccountPassword {
			tc.rot.Spec.ServiceAccount = "nova"
		}
		create(t, tc.rot)
		rotationReady(t, tc.rot, tc.reason)
		var got c5c3v1alpha1.KeystoneService
		if err := kube.Get(ctx, types.NamespacedName{Namespace: allowedNS, Name: catalogOnly.Name}, &got); err != nil {
			t.Fatal(err)
		}
		if v, ok := got.Annotations[c5c3v1alpha1.AnnotationPasswordRotationRequest]; ok {
			t.Errorf("%s: the registration carries a rotation request %q", tc.rot.Name, v)
		}
		if err := kube.Delete(ctx, tc.rot); err != nil {
			t.Fatal(err)
		}
	}
	deleteAndWaitGone(t, catalogOnly, "rot-catalog-it")
}

// TestReasons_WaitingForCatalog: the apiserver refuses K-ORC's status
// writes on managed Services and Endpoints in the plane's namespace (an
// admission policy; the collision probe's import is let through), so the
// registration's catalog children never report Available and CatalogReady
// says WaitingForCatalog naming them (docs/reference/keystoneservice.md,
// "Conditions"). Once the policy is lifted the catalog registers.
func TestReasons_WaitingForCatalog(t *testing.T) {
	ctx := context.Background()
	const ns, typ = "openstack-pending", "pending-it"
	cp := newPlane(t, ns, stack.Keystone.AdminPassword, "")
	planeCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, c5c3v1alpha1.ReasonAdminCredentialReady)
	lift := testenv.Refuse(t, kube, testenv.Refusal{Namespace: ns, Group: "openstack.k-orc.cloud",
		Resources:  []string{"services/status", "endpoints/status"},
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
		Allow:      `object.spec.managementPolicy != "managed"`})
	ks := registration(ns, "pending", typ, false, map[string]string{"public": "http://pending.example"})
	ks.Spec.ControlPlaneRef.Namespace = ""
	create(t, ks)
	waitForMessage(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonWaitingForCatalog, "not Available yet")
	lift()
	// K-ORC retries a refused status write with back-off: a change to the
	// children reconciles them now.
	eventually(t, waitTimeout, "touch the K-ORC Services and Endpoints", func() error {
		for _, l := range []client.ObjectList{&orcv1alpha1.ServiceList{}, &orcv1alpha1.EndpointList{}} {
			if err := kube.List(ctx, l, client.InNamespace(ns)); err != nil {
				return err
			}
			if err := meta.EachListItem(l, func(o runtime.Object) error {
				obj := o.(client.Object)
				return kube.Patch(ctx, obj, client.RawPatch(types.MergePatchType,
					[]byte(`{"metadata":{"annotations":{"test.orderhub/touch":"`+metav1.Now().Format(time.RFC3339Nano)+`"}}}`)))
			}); err != nil {
				return err
			}
		}
		return nil
	})
	waitForCondition(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonCatalogRegistered)
	deleteAndWaitGone(t, ks, typ)
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}

// waitEvent waits for an event of eventType and reason on obj (events are
// written asynchronously) and logs its message.
func waitEvent(t *testing.T, obj client.Object, eventType, reason string) {
	t.Helper()
	eventually(t, waitTimeout, "the "+reason+" event on "+obj.GetName(), func() error {
		var events corev1.EventList
		if err := kube.List(context.Background(), &events, client.InNamespace(obj.GetNamespace())); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == obj.GetName() && e.InvolvedObject.Kind == testenv.KindOf(obj) && e.Type == eventType && e.Reason == reason {
				t.Logf("event %s: %s", e.Reason, e.Message)
				testenv.ObservedEvent(t, obj, e.Type, e.Reason)
				return nil
			}
		}
		return fmt.Errorf("no %s %s event among %d", eventType, reason, len(events.Items))
	})
}

// TestReasons_AccountGates: the account block reads the shared gate and
// the plane's secret store (docs/reference/keystoneservice.md,
// "Conditions"): ControlPlaneNotFound when spec.controlPlaneRef names no
// plane, SecretStoreNotReady while the plane's secret store is not ready
// (its ClusterSecretStore does not exist), and AccountProvisioned once the
// store is back. Nothing is created in Keystone for a registration without
// a plane.
func TestReasons_AccountGates(t *testing.T) {
	ctx := context.Background()
	t.Run("ControlPlaneNotFound", func(t *testing.T) {
		t.Parallel()
		ks := accountRegistration(planeNS, "acct-noplane", "acct-noplane-project", true)
		ks.Spec.ControlPlaneRef.Name = "absent"
		create(t, ks)
		waitForMessage(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonControlPlaneNotFound, "absent")
		if u := keystoneUser(t, "acct-noplane"); u != nil {
			t.Errorf("user %s created for a registration without a plane", u.Name)
		}
		deleteAndWaitGone(t, ks, "none")
	})
	t.Run("SecretStoreNotReady", func(t *testing.T) {
		t.Parallel()
		const ns = "openstack-acctstore"
		cp := newPlane(t, ns, stack.Keystone.AdminPassword, "")
		setPlane(t, cp, func(p *c5c3v1alpha1.ControlPlane) {
			p.Spec.SecretStoreRef = &c5c3v1alpha1.SecretStoreRefSpec{Kind: "ClusterSecretStore", Name: "missing-store"}
		})
		planeCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, c5c3v1alpha1.ReasonAdminCredentialReady)
		ks := accountRegistration(ns, "acct-store", "acct-store-project", true)
		ks.Spec.ControlPlaneRef.Namespace = ""
		create(t, ks)
		waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonSecretStoreNotReady)
		setPlane(t, cp, func(p *c5c3v1alpha1.ControlPlane) { p.Spec.SecretStoreRef = nil })
		waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonAccountProvisioned)
		deleteAndWaitGone(t, ks, "none")
		if err := kube.Delete(ctx, cp); err != nil {
			t.Fatal(err)
		}
	})
}

// TestReasons_AdminIdentityEditedOntoOwnedUser: the plane's admin identity
// is edited onto the user a provisioned registration owns (its
// adminCredential names that user, with the password the registration
// delivered). The account reads ServiceAccountCollision naming the edit and
// the remedy (move the ControlPlane back, do not delete the registration),
// and the user stays in Keystone; once the plane is moved back the account
// is provisioned again (docs/reference/keystoneservice.md, "Collision and
// adoption").
func TestReasons_AdminIdentityEditedOntoOwnedUser(t *testing.T) {
	ctx := context.Background()
	const ns = "openstack-adminedit"
	cp := newPlane(t, ns, stack.Keystone.AdminPassword, "")
	planeCondition(t, cp, c5c3v1alpha1.ConditionAdminCredentialReady, c5c3v1alpha1.ReasonAdminCredentialReady)
	ks := accountRegistration(ns, "edited", "edited-project", true, "member")
	ks.Spec.ControlPlaneRef.Namespace = ""
	create(t, ks)
	waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonAccountProvisioned)
	var consumer corev1.Secret
	if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: ks.Name + "-credentials"}, &consumer); err != nil {
		t.Fatal(err)
	}
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "edited-admin", Namespace: ns},
		Data: map[string][]byte{controlplane.DefaultPasswordKey: consumer.Data["password"]}})

	setPlane(t, cp, func(p *c5c3v1alpha1.ControlPlane) {
		p.Spec.KORC.AdminCredential.UserName = "edited"
		p.Spec.KORC.AdminCredential.ProjectName = "edited-project"
		p.Spec.KORC.AdminCredential.PasswordSecretRef.Name = "edited-admin"
	})
	waitForMessage(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonServiceAccountCollision,
		"admin identity was edited onto the user this registration owns")
	if u := keystoneUser(t, "edited"); u == nil {
		t.Fatal("the registration's user is gone from Keystone")
	}

	setPlane(t, cp, func(p *c5c3v1alpha1.ControlPlane) { p.Spec.KORC.AdminCredential = c5c3v1alpha1.AdminCredentialSpec{} })
	waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonAccountProvisioned)
	deleteAndWaitGone(t, ks, "none")
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}
