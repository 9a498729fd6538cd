//go:build integration

package keystoneuser

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// allAssigned is the suite plane's spec.namespaceAssignments.
func allAssigned() []c5c3v1alpha1.NamespaceAssignment {
	return []c5c3v1alpha1.NamespaceAssignment{assigned(tenantNS), assigned(secondNS), assigned(consentNS)}
}

// setAssignments rewrites the plane's spec.namespaceAssignments.
func setAssignments(t *testing.T, as []c5c3v1alpha1.NamespaceAssignment) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "update the ControlPlane", func() error {
		var cp c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), client.ObjectKey{Namespace: planeNS, Name: "cp"}, &cp); err != nil {
			return err
		}
		cp.Spec.NamespaceAssignments = as
		return kube.Update(context.Background(), &cp)
	})
}

// authenticates fails the test unless the password ku's delivered Secret
// carries authenticates with Keystone; it returns that password.
func authenticates(t *testing.T, ku *c5c3v1alpha1.KeystoneUser, what string) string {
	t.Helper()
	c, _, err := delivered(ku)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testenv.Authenticate(context.Background(), c); err != nil {
		t.Fatalf("%s: the delivered password of %s/%s does not authenticate: %v", what, ku.Namespace, ku.Name, err)
	}
	return c.AuthInfo.Password
}

func userReason(ku *c5c3v1alpha1.KeystoneUser) string {
	if c := meta.FindStatusCondition(ku.Status.Conditions, c5c3v1alpha1.ConditionUserReady); c != nil && c.ObservedGeneration == ku.Generation {
		return c.Reason
	}
	return ""
}

// TestSameUserNameAcrossNamespaces: two orders of one Keystone user name in
// two assigned namespaces, created at once. Only one owns the user; the
// other reads UserCollision naming no holder outside its namespace;
// deleting it leaves
// the holder's user and its delivered password intact.
func TestSameUserNameAcrossNamespaces(t *testing.T) {
	ctx := context.Background()
	a, b := userOrder(tenantNS, "twin-user"), userOrder(secondNS, "twin-user")
	create(t, a)
	create(t, b)
	var owner, other *c5c3v1alpha1.KeystoneUser
	both := false
	testenv.Eventually(t, waitTimeout, "one twin delivered, the other refused", func() error {
		for _, ku := range []*c5c3v1alpha1.KeystoneUser{a, b} {
			if err := kube.Get(ctx, client.ObjectKeyFromObject(ku), ku); err != nil {
				return err
			}
		}
		ra, rb := userReason(a), userReason(b)
		switch {
		case ra == c5c3v1alpha1.ReasonUserProvisioned && rb == c5c3v1alpha1.ReasonUserProvisioned:
			both = true
		case ra == c5c3v1alpha1.ReasonUserProvisioned && rb == c5c3v1alpha1.ReasonUserCollision:
			owner, other = a, b
		case rb == c5c3v1alpha1.ReasonUserProvisioned && ra == c5c3v1alpha1.ReasonUserCollision:
			owner, other = b, a
		default:
			return fmt.Errorf("a=%s b=%s", ra, rb)
		}
		return nil
	})
	if both {
		t.Fatalf("both twins report UserProvisioned (userIDs %q, %q): they share one Keystone user", a.Status.UserID, b.Status.UserID)
	}
	msg := meta.FindStatusCondition(other.Status.Conditions, c5c3v1alpha1.ConditionUserReady).Message
	// The holder is in another namespace: a tenant's message names nothing
	// outside its own (docs/reference/keystoneuser.md).
	if strings.Contains(msg, owner.Namespace) || !strings.Contains(msg, orders.HolderOutsideNamespace) {
		t.Fatalf("the collision names the holder %s/%s outside this namespace, or not as %q: %s",
			owner.Namespace, owner.Name, orders.HolderOutsideNamespace, msg)
	}
	owner = waitFor(t, owner, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	pw := authenticates(t, owner, "the holder")
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: childName(other, korc.DiscUser)}, &orcv1alpha1.User{}); err == nil {
		t.Fatal("the refused twin has a K-ORC User")
	}
	if err := kube.Delete(ctx, other); err != nil {
		t.Fatal(err)
	}
	waitGone(t, other)
	if u := keystoneUser(t, "twin-user"); u == nil || u.ID != owner.Status.UserID {
		t.Fatalf("deleting the refused twin touched the holder's user: %+v", u)
	}
	if got := authenticates(t, owner, "after the refused twin went"); got != pw {
		t.Fatal("the holder's delivered password changed")
	}
	if err := kube.Delete(ctx, owner); err != nil {
		t.Fatal(err)
	}
	waitGone(t, owner)
	if u := keystoneUser(t, "twin-user"); u != nil {
		t.Fatalf("the Keystone user outlived its order: %+v", u)
	}
}

// TestDeletedPasswordSecretOutOfBand (breaker H1): deleting the applied
// password-v1 Secret never re-creates generation 1 with bytes Keystone never
// received: a real rotation to generation 2 follows, and the delivered
// password authenticates while the lost one no longer does.
func TestDeletedPasswordSecretOutOfBand(t *testing.T) {
	ctx := context.Background()
	ku := userOrder(tenantNS, "pwdel")
	create(t, ku)
	ku = waitGeneration(t, ku, 1)
	first := authenticates(t, ku, "generation 1")
	if err := kube.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: planeNS,
		Name: childName(ku, korc.PasswordDiscriminator(1))}}); err != nil {
		t.Fatal(err)
	}
	ku = waitGeneration(t, ku, 2)
	second := authenticates(t, ku, "after the lost generation")
	if second == first {
		t.Fatal("the delivered password did not change with the new generation")
	}
	c, _, err := delivered(ku)
	if err != nil {
		t.Fatal(err)
	}
	c.AuthInfo.Password = first
	if _, err := testenv.Authenticate(ctx, c); err == nil {
		t.Fatal("Keystone still accepts the lost generation's password")
	}
	var s corev1.Secret
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: childName(ku, korc.PasswordDiscriminator(1))}, &s); err == nil {
		t.Fatal("generation 1 was created again")
	}
	if err := kube.Delete(ctx, ku); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
}

// TestConsentRemovedMidRotation (breaker H5): the consent goes after K-ORC
// applied generation 2 but before it was delivered (the suite's Verifier
// holds the delivery). The frozen order still finishes that rotation, so
// the consumer holds a password Keystone accepts; nothing else moves. Then
// deleting the frozen order tears it down ("Deletion Semantics").
func TestConsentRemovedMidRotation(t *testing.T) {
	ctx := context.Background()
	ku := userOrder(consentNS, "midrot")
	create(t, ku)
	ku = waitGeneration(t, ku, 1)
	first := authenticates(t, ku, "generation 1")
	blocked.Store("midrot", true)
	t.Cleanup(func() { blocked.Delete("midrot") })
	p := client.MergeFrom(ku.DeepCopy())
	ku.Spec.PasswordGeneration = 2
	if err := kube.Patch(ctx, ku, p); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, waitTimeout, "K-ORC applied generation 2", func() error {
		var u orcv1alpha1.User
		if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: childName(ku, korc.DiscUser)}, &u); err != nil {
			return err
		}
		if ref := korc.AppliedPasswordRef(&u); ref != childName(ku, korc.PasswordDiscriminator(2)) {
			return fmt.Errorf("applied %q", ref)
		}
		return nil
	})
	if c, _, err := delivered(ku); err != nil || c.AuthInfo.Password != first {
		t.Fatalf("generation 2 was delivered although the check was refused (err %v)", err)
	}
	setAssignments(t, []c5c3v1alpha1.NamespaceAssignment{assigned(tenantNS), assigned(secondNS)})
	t.Cleanup(func() { setAssignments(t, allAssigned()) })
	ku = waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonNamespaceNotAssigned)
	blocked.Delete("midrot")
	testenv.Eventually(t, waitTimeout, "the frozen order delivers generation 2", func() error {
		if err := kube.Get(ctx, client.ObjectKeyFromObject(ku), ku); err != nil {
			return err
		}
		if ku.Status.PasswordGeneration != 2 {
			return fmt.Errorf("status.passwordGeneration %d", ku.Status.PasswordGeneration)
		}
		return nil
	})
	if got := authenticates(t, ku, "frozen after the rotation"); got == first {
		t.Fatal("the delivered password is still generation 1's")
	}
	if r := userReason(ku); r != c5c3v1alpha1.ReasonNamespaceNotAssigned {
		t.Fatalf("the order is not frozen any more: %s", r)
	}
	// Deleting a frozen order tears it down.
	if err := kube.Delete(ctx, ku); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
	if u := keystoneUser(t, "midrot"); u != nil {
		t.Fatalf("the frozen order's Keystone user outlived it: %+v", u)
	}
}

// TestKeystoneUserDeletedOutOfBand (breaker M2): a Ready order re-checks its
// delivered password every Options.VerifyInterval; once the Keystone user
// is deleted outside orderhub it reads UserReady=False naming the remedy
// instead of staying Ready.
func TestKeystoneUserDeletedOutOfBand(t *testing.T) {
	ctx := context.Background()
	ku := userOrder(tenantNS, "oob-user")
	create(t, ku)
	ku = waitGeneration(t, ku, 1)
	if err := users.Delete(ctx, identity, ku.Status.UserID).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	ku = waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonUserFailed)
	t.Logf("UserReady: %s", meta.FindStatusCondition(ku.Status.Conditions, c5c3v1alpha1.ConditionUserReady).Message)
	if meta.IsStatusConditionTrue(ku.Status.Conditions, c5c3v1alpha1.ConditionReady) {
		t.Fatal("the order still reads Ready")
	}
	if err := kube.Delete(ctx, ku); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
}
