//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/korc"
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
//   - CredentialDrift: the mint credential authenticates as another user
//     than the one K-ORC mints for (the KeystoneUser's status.userID names
//     a user other than its K-ORC User), so Keystone's policy refuses the
//     create (403 on identity:create_application_credential).
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

	t.Run("CredentialDrift", func(t *testing.T) {
		w := newWorld(t, ns, "drift")
		w.grantRole(t)
		// Another user with a role on the project, whose password the
		// user order's generation 1 now carries.
		enabled := true
		other, err := users.Create(ctx, identity, users.CreateOpts{Name: "drift-other", DomainID: "default",
			Password: "pw-drift-other-Secret1", Enabled: &enabled}).Extract()
		if err != nil {
			t.Fatal(err)
		}
		if err := roles.Assign(ctx, identity, w.roleID, roles.AssignOpts{UserID: other.ID, ProjectID: w.projectID}).ExtractErr(); err != nil {
			t.Fatal(err)
		}
		pw := &corev1.Secret{}
		if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: PasswordSecretName("", ns, w.user, 1)}, pw); err != nil {
			t.Fatal(err)
		}
		pw.Data[korc.PasswordKey] = []byte("pw-drift-other-Secret1")
		if err := kube.Update(ctx, pw); err != nil {
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
		ac := w.order("drift", time.Hour, time.Minute)
		create(t, ac)
		waitReason(t, ac, c5c3v1alpha1.ConditionCredentialReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonCredentialDrift)
		planeReady(t)
		if creds, err := w.keystoneCredentials(ctx); err != nil || len(creds) != 0 {
			t.Errorf("Keystone holds %d credentials of the user (%v), want none", len(creds), err)
		}
		deleteAndWaitGone(t, ac)
	})
}
