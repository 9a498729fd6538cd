//go:build integration

package keystoneapplicationcredential

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

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/testenv"
)

// The reason tests of KeystoneApplicationCredential: each condition reason
// the order writes, caused by a real server where one can be made
// (hack/reasons lists which test shows which reason).

// deleteAndWaitGone deletes ac and waits until the order is gone.
func deleteAndWaitGone(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential) {
	t.Helper()
	ctx := context.Background()
	if err := kube.Delete(ctx, ac); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, "KeystoneApplicationCredential "+ac.Name+" gone", func() error {
		err := kube.Get(ctx, client.ObjectKeyFromObject(ac), &c5c3v1alpha1.KeystoneApplicationCredential{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %v", err)
	})
}

// waitMessage waits until the order's condition typ reads reason with a
// message containing want.
func waitMessage(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential, typ, reason, want string) {
	t.Helper()
	eventually(t, waitTimeout, fmt.Sprintf("%s=%s naming %q", typ, reason, want), func() error {
		c := condition(get(t, ac), typ)
		if c.Status != metav1.ConditionFalse || c.Reason != reason || !strings.Contains(c.Message, want) {
			return fmt.Errorf("%s=%s/%s: %s", typ, c.Status, c.Reason, c.Message)
		}
		testenv.ObservedCondition(t, ac, c)
		return nil
	})
}

// TestReasons_ReferenceGates: an order whose references cannot be served
// yet names the reference and mints nothing
// (docs/reference/keystoneapplicationcredential.md, "Consent"): its
// KeystoneUser belongs to another ControlPlane (ControlPlaneMismatch), is
// not provisioned yet, or the password of its current generation is not
// available (both WaitingForUser). Once the password is back the order
// mints.
func TestReasons_ReferenceGates(t *testing.T) {
	ctx := context.Background()
	const ns = "reasons-refs"
	ensureNamespace(t, ns)
	planeReady(t)
	w := newWorld(t, ns, "refs")
	w.grantRole(t)

	foreign := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "foreign-user", Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp-other", Namespace: planeNS}}}
	create(t, foreign)
	unready := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "unready-user", Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS}}}
	create(t, unready)
	for _, tc := range []struct {
		user, reason, want string
	}{
		{foreign.Name, c5c3v1alpha1.ReasonControlPlaneMismatch, "belongs to ControlPlane " + planeNS + "/cp-other"},
		{unready.Name, c5c3v1alpha1.ReasonWaitingForUser, "is not provisioned yet"},
	} {
		ac := w.order("gate-"+tc.user, time.Hour, time.Minute)
		ac.Spec.UserRef.Name = tc.user
		create(t, ac)
		waitMessage(t, ac, c5c3v1alpha1.ConditionCredentialReady, tc.reason, tc.want)
		if creds, err := kORCCredentials(ctx, ac); err != nil || len(creds) != 0 {
			t.Errorf("%s: %d K-ORC ApplicationCredentials (%v), want none", tc.reason, len(creds), err)
		}
		deleteAndWaitGone(t, ac)
	}

	// The password of the user's generation 1 is not available.
	pw := &corev1.Secret{}
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: PasswordSecretName("", ns, w.user, 1)}, pw); err != nil {
		t.Fatal(err)
	}
	if err := kube.Delete(ctx, pw); err != nil {
		t.Fatal(err)
	}
	ac := w.order("gate-password", time.Hour, time.Minute)
	create(t, ac)
	waitMessage(t, ac, c5c3v1alpha1.ConditionCredentialReady, c5c3v1alpha1.ReasonWaitingForUser, "generation 1 is not available")
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: pw.Name, Namespace: planeNS, Labels: pw.Labels}, Data: pw.Data})
	waitReason(t, ac, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonCredentialMinted)
	deleteAndWaitGone(t, ac)
}

// TestReasons_ExternalModeOnTheCredential: against the External plane,
// K-ORC's failure to mint the first generation is classified on
// CredentialReady (docs/reference/keystoneapplicationcredential.md,
// "Conditions"), while the plane stays AdminCredentialReady (it
// authenticates as the admin, the mint as the user):
//
//   - AuthenticationFailed: the user's password was changed in Keystone out
//     of band, so the password of the order's user generation no longer
//     authenticates (Keystone answers 401);
//   - CredentialDrift: Keystone's policy refuses the create (403 on
//     identity:create_application_credential, as a cloud that keeps
//     application credentials to admins answers; here a proxy in front of
//     the real Keystone answers it for that one call, and the plane's
//     authURL names the proxy);
//
// and a KeystoneUser whose status.userID names another user (whoever may
// write its status could write it) mints as its own K-ORC User all the same
// (docs/hub.md "Trust").
func TestReasons_ExternalModeOnTheCredential(t *testing.T) {
	ctx := context.Background()
	const ns = "reasons-external"
	ensureNamespace(t, ns)
	planeReady(t)

	t.Run("AuthenticationFailed", func(t *testing.T) {
		w := newWorld(t, ns, "authfail")
		w.grantRole(t)
		if _, err := users.Update(ctx, identity, w.userID, users.UpdateOpts{Password: "changed-out-of-band-1"}).Extract(); err != nil {
			t.Fatal(err)
		}
		ac := w.order("authfail", time.Hour, time.Minute)
		create(t, ac)
		waitReason(t, ac, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonAuthenticationFailed)
		planeReady(t)
		if creds, err := w.keystoneCredentials(ctx); err != nil || len(creds) != 0 {
			t.Errorf("Keystone holds %d credentials of the user (%v), want none", len(creds), err)
		}
		deleteAndWaitGone(t, ac)
	})

	t.Run("ForgedUserStatusMintsAsItsOwnUser", func(t *testing.T) {
		w := newWorld(t, ns, "forged")
		w.grantRole(t)
		// Another user with the order's password and a role on the
		// project: a mint cloud that followed the forged status.userID
		// would log in as it, and Keystone would refuse the create for
		// the order's user (403).
		enabled := true
		other, err := users.Create(ctx, identity, users.CreateOpts{Name: "forged-other", DomainID: "default",
			Password: w.password, Enabled: &enabled}).Extract()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = users.Delete(context.Background(), identity, other.ID).ExtractErr() })
		if err := roles.Assign(ctx, identity, w.roleID, roles.AssignOpts{UserID: other.ID, ProjectID: w.projectID}).ExtractErr(); err != nil {
			t.Fatal(err)
		}
		var uo c5c3v1alpha1.KeystoneUser
		if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: w.user}, &uo); err != nil {
			t.Fatal(err)
		}
		uo.Status.UserID = other.ID
		if err := kube.Status().Update(ctx, &uo); err != nil {
			t.Fatal(err)
		}
		ac := w.order("forged", time.Hour, time.Minute)
		create(t, ac)
		waitReason(t, ac, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonCredentialMinted)
		if creds, err := w.keystoneCredentials(ctx); err != nil || len(creds) != 1 {
			t.Errorf("Keystone holds %d credentials of the order's own user (%v), want 1", len(creds), err)
		}
		deleteAndWaitGone(t, ac)
	})
}

// TestReasons_CredentialDriftOnTheCredential: an External plane whose
// authURL is a proxy in front of the stack's Keystone that answers
// identity:create_application_credential with Keystone's 403 (the policy
// of a cloud that keeps application credentials to admins). The plane's
// admin check passes; K-ORC's create is refused and CredentialReady reads
// CredentialDrift, with nothing in Keystone; back on Keystone itself the
// credential is minted.
func TestReasons_CredentialDriftOnTheCredential(t *testing.T) {
	const plane, ns = "openstack-policy", "reasons-policy"
	const refusal = `{"error":{"code":403,"message":"You are not authorized to perform the requested action: identity:create_application_credential.","title":"Forbidden"}}`
	proxy, err := testenv.NewCountingProxy(stack.Keystone.URL, testenv.CountingProxyOptions{RewriteHost: true,
		Refuse: func(r *http.Request) (int, string) {
			if r.Method == http.MethodPost && strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/application_credentials") {
				return http.StatusForbidden, refusal
			}
			return 0, ""
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	target, _ := url.Parse(stack.Keystone.URL)

	classifiedBehindFront(t, plane, ns, "policy", proxy.URL+target.Path, c5c3v1alpha1.ReasonCredentialDrift, "403")
}

// TestReasons_TLSVerificationFailedOnTheCredential: the plane's authURL
// moves to a TLS front of Keystone whose certificate the hub trusts (it is
// in the hub process's system roots, SSL_CERT_FILE) and K-ORC does not (its
// process has the machine's roots), as between two images with different
// trust stores. The plane's admin credential check passes; K-ORC cannot
// build a client with the mint credential, and CredentialReady says
// TLSVerificationFailed with K-ORC's x509 error
// (docs/reference/keystoneapplicationcredential.md, "Conditions"). With
// authURL back on the plain endpoint the first generation is minted.
//
// Go loads the system roots once, on the first verification without a CA
// bundle; the test sets SSL_CERT_FILE before the hub's first one. Had an
// earlier test loaded them, the plane would report TLSVerificationFailed
// itself and the test would fail there.
func TestReasons_TLSVerificationFailedOnTheCredential(t *testing.T) {
	const plane, ns = "openstack-tls", "reasons-tls"
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

	classifiedBehindFront(t, plane, ns, "tls", srv.URL+path, c5c3v1alpha1.ReasonTLSVerificationFailed, "x509")
}

// classifiedBehindFront creates namespace plane with an External plane "cp"
// assigning ns, a world of prefix in ns, and moves the plane's authURL to
// front (the plane's admin check passes there). A credential of the world
// then reads CredentialReady=False/reason with a message containing want,
// while the plane stays Ready and Keystone holds none of the user's
// credentials; back on the stack's Keystone it is minted. The plane is
// deleted at the end.
func classifiedBehindFront(t *testing.T, plane, ns, prefix, front, reason, want string) {
	t.Helper()
	ctx := context.Background()
	cp := newPlaneIn(t, plane, ns, "")
	w := newWorldOn(t, ns, prefix, plane)
	setPlaneAuthURL(t, cp, front)
	ac := w.order(prefix, time.Hour, time.Minute)
	ac.Spec.ControlPlaneRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: plane}
	create(t, ac)
	waitClassified(t, ac, reason, want)
	planeOfReady(t, cp)
	if creds, err := w.keystoneCredentials(ctx); err != nil || len(creds) != 0 {
		t.Errorf("Keystone holds %d credentials of the user (%v), want none", len(creds), err)
	}
	setPlaneAuthURL(t, cp, stack.Keystone.URL)
	waitReason(t, ac, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonCredentialMinted)
	deleteAndWaitGone(t, ac)
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}

// waitClassified waits until CredentialReady reads reason with a message
// containing want; a timeout names the K-ORC ApplicationCredentials'
// conditions.
func waitClassified(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential, reason, want string) {
	t.Helper()
	eventually(t, waitTimeout, fmt.Sprintf("CredentialReady=%s naming %q", reason, want), func() error {
		c := condition(get(t, ac), c5c3v1alpha1.ConditionCredentialReady)
		if c.Status == metav1.ConditionFalse && c.Reason == reason && strings.Contains(c.Message, want) {
			testenv.ObservedCondition(t, ac, c)
			return nil
		}
		var creds orcv1alpha1.ApplicationCredentialList
		err := kube.List(context.Background(), &creds, client.InNamespace(ac.Spec.ControlPlaneRef.Namespace))
		var states []string
		for _, k := range creds.Items {
			states = append(states, fmt.Sprintf("%s: %+v", k.Name, k.Status.Conditions))
		}
		return fmt.Errorf("CredentialReady=%s/%s: %s; K-ORC ApplicationCredentials (%v): %v", c.Status, c.Reason, c.Message, err, states)
	})
}

// newWorldOn is newWorld (world_integration_test.go) on the ControlPlane
// "cp" of namespace plane, with its role grant: the K-ORC User import, the
// password Secret and the orders name that plane.
func newWorldOn(t *testing.T, ns, prefix, plane string) *world {
	t.Helper()
	w := newWorldIn(t, ns, prefix, plane)
	w.grantRoleIn(t, plane)
	return w
}

// newPlaneIn creates namespace planeNamespace with the admin password
// Secret and an External ControlPlane "cp" against the stack's Keystone
// (region region, "" the default) assigning orderNamespace (created too),
// and waits until it is AdminCredentialReady.
func newPlaneIn(t *testing.T, planeNamespace, orderNamespace, region string) *c5c3v1alpha1.ControlPlane {
	t.Helper()
	create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: planeNamespace}})
	create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: orderNamespace}})
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: controlplane.DefaultPasswordSecret, Namespace: planeNamespace},
		Data: map[string][]byte{controlplane.DefaultPasswordKey: []byte(stack.Keystone.AdminPassword)}})
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: planeNamespace},
		Spec: c5c3v1alpha1.ControlPlaneSpec{Region: region,
			Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{Mode: c5c3v1alpha1.KeystoneModeExternal,
				External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: stack.Keystone.URL}}},
			NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{{Namespace: orderNamespace}}}}
	create(t, cp)
	planeOfReady(t, cp)
	return cp
}

// planeOfReady waits until cp is AdminCredentialReady.
func planeOfReady(t *testing.T, cp *c5c3v1alpha1.ControlPlane) {
	t.Helper()
	eventually(t, waitTimeout, "ControlPlane "+cp.Namespace+"/cp AdminCredentialReady", func() error {
		var got c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), client.ObjectKeyFromObject(cp), &got); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(got.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady) {
			return fmt.Errorf("conditions %v", got.Status.Conditions)
		}
		return nil
	})
}

// TestReasons_ChildrenRefusedByTheAPIServer: the apiserver refuses what
// the order writes (an admission policy). While it refuses Secrets in the
// plane's namespace, the mint document cannot be written and
// CredentialReady says CredentialError; once that is lifted and it refuses
// Secrets in the order's namespace, the credential is minted but not
// delivered (DeliveryReady DeliveryError), each with the apiserver's
// refusal (docs/reference/keystoneapplicationcredential.md, "Conditions").
// With nothing refused the order is Ready and its Secret authenticates.
func TestReasons_ChildrenRefusedByTheAPIServer(t *testing.T) {
	ctx := context.Background()
	const plane, ns = "openstack-refused", "reasons-refused"
	cp := newPlaneIn(t, plane, ns, "")
	w := newWorldOn(t, ns, "refused", plane)
	lift := testenv.Refuse(t, kube, testenv.Refusal{Namespace: plane, Resources: []string{"secrets"}})
	ac := w.order("refused", time.Hour, time.Minute)
	ac.Spec.ControlPlaneRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: plane}
	create(t, ac)
	waitMessage(t, ac, c5c3v1alpha1.ConditionCredentialReady, c5c3v1alpha1.ReasonCredentialError, testenv.RefusalMessage)
	if creds, err := w.keystoneCredentials(ctx); err != nil || len(creds) != 0 {
		t.Errorf("Keystone holds %d credentials of the user (%v), want none", len(creds), err)
	}

	liftDelivery := testenv.Refuse(t, kube, testenv.Refusal{Namespace: ns, Resources: []string{"secrets"}})
	lift()
	waitReason(t, ac, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonCredentialMinted)
	waitMessage(t, ac, c5c3v1alpha1.ConditionDeliveryReady, c5c3v1alpha1.ReasonDeliveryError, testenv.RefusalMessage)

	liftDelivery()
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)
	c, _, err := delivered(ctx, ac)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := authenticate(ctx, c); err != nil {
		t.Errorf("the delivered credential does not authenticate: %v", err)
	}
	deleteAndWaitGone(t, ac)
	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
}

// setPlaneAuthURL moves cp's External authURL to u and waits until the plane
// verified its admin credential there.
func setPlaneAuthURL(t *testing.T, cp *c5c3v1alpha1.ControlPlane, u string) {
	t.Helper()
	ctx := context.Background()
	eventually(t, waitTimeout, "set the plane's authURL", func() error {
		var cur c5c3v1alpha1.ControlPlane
		if err := kube.Get(ctx, client.ObjectKeyFromObject(cp), &cur); err != nil {
			return err
		}
		cur.Spec.Services.Keystone.External.AuthURL = u
		return kube.Update(ctx, &cur)
	})
	eventually(t, waitTimeout, "the plane verified "+u, func() error {
		var got c5c3v1alpha1.ControlPlane
		if err := kube.Get(ctx, client.ObjectKeyFromObject(cp), &got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady)
		if c == nil || c.ObservedGeneration != got.Generation || c.Reason != c5c3v1alpha1.ReasonAdminCredentialReady {
			return fmt.Errorf("AdminCredentialReady %+v at generation %d", c, got.Generation)
		}
		return nil
	})
}

// TestReasons_OrderGates: an order whose ControlPlane, references or
// delivered Secret cannot be served names the cause
// (docs/reference/keystoneapplicationcredential.md, "Conditions"):
//
//   - ControlPlaneNotFound on both sub-conditions: spec.controlPlaneRef
//     names no ControlPlane;
//   - WaitingForAdminCredential on both: the plane's admin check fails (its
//     authURL refuses connections); once it passes again the order moves
//     on to its references;
//   - UserNotFound, ProjectNotFound: a reference names no order;
//   - WaitingForProject: the KeystoneProject is not provisioned yet;
//   - DeliveryRefused: a Secret of the delivered name exists that the order
//     does not own; it is left as it is, and the credential is delivered
//     once it is gone.
//
// Nothing is minted for a refused order.
func TestReasons_OrderGates(t *testing.T) {
	const ns = "reasons-gates"
	ensureNamespace(t, ns)
	planeReady(t)
	w := newWorld(t, ns, "gates")
	w.grantRole(t)

	noMint := func(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential) {
		t.Helper()
		if creds, err := kORCCredentials(context.Background(), ac); err != nil || len(creds) != 0 {
			t.Errorf("%d K-ORC ApplicationCredentials (%v), want none", len(creds), err)
		}
	}
	t.Run("ControlPlaneNotFound", func(t *testing.T) {
		t.Parallel()
		ac := w.order("gate-noplane", time.Hour, time.Minute)
		ac.Spec.ControlPlaneRef.Name = "absent"
		create(t, ac)
		for _, typ := range []string{c5c3v1alpha1.ConditionCredentialReady, c5c3v1alpha1.ConditionDeliveryReady} {
			waitMessage(t, ac, typ, c5c3v1alpha1.ReasonControlPlaneNotFound, "absent")
		}
		noMint(t, ac)
		deleteAndWaitGone(t, ac)
	})
	t.Run("WaitingForAdminCredential", func(t *testing.T) {
		t.Parallel()
		const plane, pns = "openstack-gates", "reasons-gates-noadmin"
		cp := newPlaneIn(t, plane, pns, "")
		setPlane(t, cp, func(p *c5c3v1alpha1.ControlPlane) {
			p.Spec.Services.Keystone.External.AuthURL = "http://127.0.0.1:2/v3"
		})
		ac := &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Name: "gate-noadmin", Namespace: pns},
			Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: plane},
				UserRef: c5c3v1alpha1.OrderRef{Name: "nobody"}, ProjectRef: c5c3v1alpha1.OrderRef{Name: "nowhere"}}}
		create(t, ac)
		for _, typ := range []string{c5c3v1alpha1.ConditionCredentialReady, c5c3v1alpha1.ConditionDeliveryReady} {
			waitMessage(t, ac, typ, c5c3v1alpha1.ReasonWaitingForAdminCredential, "is not AdminCredentialReady (EndpointUnreachable)")
		}
		setPlaneAuthURL(t, cp, stack.Keystone.URL)
		waitMessage(t, ac, c5c3v1alpha1.ConditionCredentialReady, c5c3v1alpha1.ReasonUserNotFound, "nobody")
		noMint(t, ac)
		deleteAndWaitGone(t, ac)
		if err := kube.Delete(context.Background(), cp); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("References", func(t *testing.T) {
		t.Parallel()
		unready := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: "unready-project", Namespace: ns},
			Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS}}}
		create(t, unready)
		for _, tc := range []struct {
			name, user, project, reason, want string
		}{
			{"gate-nouser", "absent-user", w.project, c5c3v1alpha1.ReasonUserNotFound, "KeystoneUser absent-user, which does not exist"},
			{"gate-noproject", w.user, "absent-project", c5c3v1alpha1.ReasonProjectNotFound, "KeystoneProject absent-project, which does not exist"},
			{"gate-unready", w.user, unready.Name, c5c3v1alpha1.ReasonWaitingForProject, "KeystoneProject unready-project is not provisioned yet"},
		} {
			ac := w.order(tc.name, time.Hour, time.Minute)
			ac.Spec.UserRef.Name, ac.Spec.ProjectRef.Name = tc.user, tc.project
			create(t, ac)
			waitMessage(t, ac, c5c3v1alpha1.ConditionCredentialReady, tc.reason, tc.want)
			noMint(t, ac)
			deleteAndWaitGone(t, ac)
		}
	})
	t.Run("DeliveryRefused", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		ac := w.order("gate-foreign", time.Hour, time.Minute)
		foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: ac.Name + "-credentials", Namespace: ns},
			Data: map[string][]byte{"owner": []byte("somebody else")}}
		create(t, foreign)
		create(t, ac)
		waitMessage(t, ac, c5c3v1alpha1.ConditionDeliveryReady, c5c3v1alpha1.ReasonDeliveryRefused, "is not owned by this order")
		var got corev1.Secret
		if err := kube.Get(ctx, client.ObjectKeyFromObject(foreign), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.OwnerReferences) != 0 || len(got.Data) != 1 || string(got.Data["owner"]) != "somebody else" {
			t.Errorf("the foreign Secret was changed: owners %v, data keys %d", got.OwnerReferences, len(got.Data))
		}
		if err := kube.Delete(ctx, foreign); err != nil {
			t.Fatal(err)
		}
		waitReason(t, ac, c5c3v1alpha1.ConditionDeliveryReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonDelivered)
		c, _, err := delivered(ctx, ac)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := authenticate(ctx, c); err != nil {
			t.Errorf("the delivered credential does not authenticate: %v", err)
		}
		deleteAndWaitGone(t, ac)
	})
}

// TestReasons_TeardownWithoutControlPlane: a delivered order whose
// ControlPlane is deleted reads ControlPlaneNotFound on both
// sub-conditions; deleted then, it is released in one pass although K-ORC
// has nothing left to reach Keystone with, and every child it had in the
// plane's namespace is deleted (docs/reference/keystoneapplicationcredential.md,
// "Deletion Semantics").
func TestReasons_TeardownWithoutControlPlane(t *testing.T) {
	ctx := context.Background()
	const plane, ns = "openstack-planegone", "reasons-planegone"
	cp := newPlaneIn(t, plane, ns, "")
	w := newWorldOn(t, ns, "planegone", plane)
	ac := w.order("planegone", time.Hour, time.Minute)
	ac.Spec.ControlPlaneRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: plane}
	create(t, ac)
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady)

	if err := kube.Delete(ctx, cp); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{c5c3v1alpha1.ConditionCredentialReady, c5c3v1alpha1.ConditionDeliveryReady} {
		waitMessage(t, ac, typ, c5c3v1alpha1.ReasonControlPlaneNotFound, plane+"/cp does not exist")
	}
	deleteAndWaitGone(t, ac)
	labels := client.MatchingLabels(orders.ChildLabels(orders.Order{Kind: orders.KindKeystoneApplicationCredential, Namespace: ns, Name: ac.Name}))
	eventually(t, waitTimeout, "every child in the plane's namespace deleted", func() error {
		var creds orcv1alpha1.ApplicationCredentialList
		var secrets corev1.SecretList
		if err := kube.List(ctx, &creds, client.InNamespace(plane), labels); err != nil {
			return err
		}
		if err := kube.List(ctx, &secrets, client.InNamespace(plane), labels); err != nil {
			return err
		}
		var left []string
		for _, o := range creds.Items {
			if o.DeletionTimestamp.IsZero() {
				left = append(left, "ApplicationCredential "+o.Name)
			}
		}
		for _, o := range secrets.Items {
			if o.DeletionTimestamp.IsZero() {
				left = append(left, "Secret "+o.Name)
			}
		}
		if len(left) > 0 {
			return fmt.Errorf("not deleted: %v", left)
		}
		return nil
	})
}
