//go:build integration

package keystoneuser

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/delivery/openbao"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// userOrder is a KeystoneUser ns/name of plane openstack/cp.
func userOrder(ns, name string) *c5c3v1alpha1.KeystoneUser {
	return &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS}}}
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := kube.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
}

// waitFor waits until ku's condition typ reads reason at its current
// generation and returns the order as then read (testenv.WaitForReason).
func waitFor(t *testing.T, ku *c5c3v1alpha1.KeystoneUser, typ, reason string) *c5c3v1alpha1.KeystoneUser {
	t.Helper()
	return testenv.WaitForReason(t, kube, waitTimeout, ku,
		func(o *c5c3v1alpha1.KeystoneUser) []metav1.Condition { return o.Status.Conditions }, typ, reason)
}

// delivered reads <name>-credentials and parses its clouds.yaml (cloud
// named after the order); it checks that the password key agrees.
func delivered(ku *c5c3v1alpha1.KeystoneUser) (cloudsyaml.Cloud, *corev1.Secret, error) {
	var s corev1.Secret
	if err := kube.Get(context.Background(), types.NamespacedName{Namespace: ku.Namespace, Name: ku.Name + "-credentials"}, &s); err != nil {
		return cloudsyaml.Cloud{}, nil, err
	}
	c, err := cloudsyaml.ParseCloud(s.Data["clouds.yaml"], ku.Name)
	if err != nil {
		return c, &s, err
	}
	if c.AuthInfo.Password != string(s.Data["password"]) {
		return c, &s, errors.New("the password key and the clouds.yaml disagree")
	}
	return c, &s, nil
}

// keystoneUser returns the Keystone user name in the Default domain, or nil.
func keystoneUser(t *testing.T, name string) *users.User {
	t.Helper()
	return testenv.First(testenv.KeystoneList(t, users.List(identity, users.ListOpts{Name: name, DomainID: "default"}), users.ExtractUsers))
}

// baoKV is a KV client of the stack's OpenBao with the root token
// (testenv.Stack.KV).
func baoKV(t *testing.T) *openbao.KV {
	t.Helper()
	kv, err := stack.KV()
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

func order(ku *c5c3v1alpha1.KeystoneUser) orders.Order {
	return orders.Order{Kind: orders.KindKeystoneUser, Namespace: ku.Namespace, Name: ku.Name}
}

// backupPath is the order's OpenBao path.
func backupPath(t *testing.T, ku *c5c3v1alpha1.KeystoneUser) string {
	t.Helper()
	prefix := strings.TrimSuffix(korc.ChildPrefix(ku.Name, korc.OrderKey("", ku.Namespace, ku.Name), korc.InfixUser), "-")
	p, err := BackupPath(planeNS, prefix)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// children counts the objects labelled as ku's children in the plane's
// namespace.
func children(t *testing.T, ku *c5c3v1alpha1.KeystoneUser) int {
	t.Helper()
	n := 0
	for _, l := range []client.ObjectList{&orcv1alpha1.UserList{}, &orcv1alpha1.DomainList{}, &corev1.SecretList{},
		eso.NewList(eso.PushSecretGVK)} {
		if err := kube.List(context.Background(), l, client.InNamespace(planeNS), client.MatchingLabels(orders.ChildLabels(order(ku)))); err != nil {
			t.Fatal(err)
		}
		n += meta.LenList(l)
	}
	return n
}

func childName(ku *c5c3v1alpha1.KeystoneUser, disc string) string {
	return korc.OrderChildName(korc.InfixUser, "", ku.Namespace, ku.Name, disc)
}

// waitGone waits until ku no longer exists.
func waitGone(t *testing.T, ku *c5c3v1alpha1.KeystoneUser) {
	t.Helper()
	testenv.Eventually(t, waitTimeout, "KeystoneUser "+ku.Name+" gone", func() error {
		err := kube.Get(context.Background(), client.ObjectKeyFromObject(ku), &c5c3v1alpha1.KeystoneUser{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return errors.New("still exists")
	})
}

// TestUserProvisionedDeliveredRotatedAndDeleted orders a user, reads it in
// Keystone, authenticates with the delivered clouds.yaml, finds the
// document in OpenBao, rotates by raising spec.passwordGeneration, and
// deletes the order, which removes the Keystone user, the children and the
// backup.
func TestUserProvisionedDeliveredRotatedAndDeleted(t *testing.T) {
	ctx := context.Background()
	ku := userOrder(tenantNS, "workflow")
	start := time.Now()
	create(t, ku)
	got := waitFor(t, ku, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	t.Logf("apply -> Ready in %s", time.Since(start).Round(100*time.Millisecond))

	u := keystoneUser(t, "workflow")
	if u == nil {
		t.Fatal("Keystone has no user workflow")
	}
	st := got.Status
	if st.UserID != u.ID || st.UserName != "workflow" || st.DomainID != u.DomainID || st.PasswordGeneration != 1 ||
		st.SecretName != "workflow-credentials" || strings.Join(st.SecretKeys, ",") != "clouds.yaml,password" ||
		st.LastPasswordRotation == nil || st.NextPasswordRotation != nil {
		t.Fatalf("status = %+v, want user %s in domain %s, generation 1, no schedule", st, u.ID, u.DomainID)
	}
	if !slices.Contains(got.Finalizers, c5c3v1alpha1.FinalizerKeystoneUserTeardown) {
		t.Fatalf("finalizers %v lack %s", got.Finalizers, c5c3v1alpha1.FinalizerKeystoneUserTeardown)
	}
	cloud, sec, err := delivered(ku)
	if err != nil {
		t.Fatal(err)
	}
	if a := cloudsyaml.AuthOf(cloud); a.Username != "workflow" || a.UserDomainName != "Default" || a.ProjectName != "" ||
		a.AuthURL != stack.Keystone.URL || cloud.Interface != cloudsyaml.InterfacePublic || cloud.RegionName != "RegionOne" {
		t.Fatalf("delivered clouds.yaml names %+v (interface %q, region %q)", a, cloud.Interface, cloud.RegionName)
	}
	if ref := metav1.GetControllerOf(sec); ref == nil || ref.Kind != "KeystoneUser" || ref.UID != got.UID {
		t.Fatalf("the delivered Secret's controller is %+v, want the order", ref)
	}
	if sec.Labels["c5c3.io/keystoneuser-name"] != "workflow" || sec.Labels["c5c3.io/keystoneuser-namespace"] != tenantNS {
		t.Fatalf("delivered Secret labels %v", sec.Labels)
	}
	if _, err := testenv.Authenticate(ctx, cloud); err != nil {
		t.Fatalf("the delivered clouds.yaml does not authenticate: %v", err)
	}
	path := backupPath(t, ku)
	kv := baoKV(t)
	if ok, err := kv.VerifyProperty(ctx, path, openbao.PropertyPassword, cloud.AuthInfo.Password); err != nil || !ok {
		t.Fatalf("OpenBao %s does not hold the delivered password (err %v)", path, err)
	}
	if ok, err := kv.VerifyProperty(ctx, path, openbao.PropertyCloudsYAML, string(sec.Data["clouds.yaml"])); err != nil || !ok {
		t.Fatalf("OpenBao %s does not hold the delivered clouds.yaml (err %v)", path, err)
	}

	// A deleted delivered Secret is written again.
	if err := kube.Delete(ctx, sec); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, waitTimeout, "the delivered Secret rewritten", func() error {
		c, _, err := delivered(ku)
		if err != nil {
			return err
		}
		if c.AuthInfo.Password != cloud.AuthInfo.Password {
			return errors.New("a different password was delivered without a rotation")
		}
		return nil
	})

	// Rotation: raise spec.passwordGeneration.
	start = time.Now()
	base := got.DeepCopy()
	got.Spec.PasswordGeneration = 2
	if err := kube.Patch(ctx, got, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, waitTimeout, "password generation 2 delivered", func() error {
		var cur c5c3v1alpha1.KeystoneUser
		if err := kube.Get(ctx, client.ObjectKeyFromObject(ku), &cur); err != nil {
			return err
		}
		r := meta.FindStatusCondition(cur.Status.Conditions, c5c3v1alpha1.ConditionReady)
		if cur.Status.PasswordGeneration != 2 || r == nil || r.Status != metav1.ConditionTrue || r.ObservedGeneration != cur.Generation {
			return fmt.Errorf("status.passwordGeneration %d, Ready %+v", cur.Status.PasswordGeneration, r)
		}
		return nil
	})
	t.Logf("rotation: spec.passwordGeneration 2 -> delivered and Ready in %s", time.Since(start).Round(100*time.Millisecond))
	rotated, _, err := delivered(ku)
	if err != nil {
		t.Fatal(err)
	}
	if rotated.AuthInfo.Password == cloud.AuthInfo.Password {
		t.Fatal("the delivered Secret still holds the old password")
	}
	if _, err := testenv.Authenticate(ctx, rotated); err != nil {
		t.Fatalf("the rotated password does not authenticate: %v", err)
	}
	if _, err := testenv.Authenticate(ctx, cloud); err == nil {
		t.Fatal("the superseded password still authenticates")
	}
	if ok, err := kv.VerifyProperty(ctx, path, openbao.PropertyPassword, rotated.AuthInfo.Password); err != nil || !ok {
		t.Fatalf("OpenBao %s does not hold the rotated password (err %v)", path, err)
	}
	testenv.Eventually(t, waitTimeout, "password generation 1 deleted", func() error {
		err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: childName(ku, korc.PasswordDiscriminator(1))}, &corev1.Secret{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("password-v1: %v", err)
	})

	// Deletion removes the Keystone user, the children and the backup.
	start = time.Now()
	if err := kube.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
	t.Logf("deletion -> finalizer released in %s", time.Since(start).Round(100*time.Millisecond))
	if u := keystoneUser(t, "workflow"); u != nil {
		t.Fatalf("Keystone still has user workflow (%s)", u.ID)
	}
	if n := children(t, ku); n != 0 {
		t.Fatalf("%d children are still listed", n)
	}
	testenv.Eventually(t, waitTimeout, "the OpenBao backup removed", func() error {
		_, _, err := kv.ReadProperty(ctx, path, openbao.PropertyPassword)
		if errors.Is(err, openbao.ErrNotFound) || errors.Is(err, openbao.ErrPropertyNotFound) {
			return nil
		}
		return fmt.Errorf("OpenBao %s still holds the password (err %v)", path, err)
	})
}

// TestUnassignedNamespaceIsFrozen: an order in a namespace no assignment
// names reads NamespaceNotAssigned and creates nothing.
func TestUnassignedNamespaceIsFrozen(t *testing.T) {
	ku := userOrder(unassignedNS, "frozen-user")
	create(t, ku)
	got := waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonNamespaceNotAssigned)
	waitFor(t, ku, c5c3v1alpha1.ConditionDeliveryReady, c5c3v1alpha1.ReasonNamespaceNotAssigned)
	if len(got.Finalizers) != 0 {
		t.Fatalf("a frozen order got finalizers %v", got.Finalizers)
	}
	if n := children(t, ku); n != 0 {
		t.Fatalf("a frozen order projected %d children", n)
	}
	if u := keystoneUser(t, "frozen-user"); u != nil {
		t.Fatalf("Keystone has user frozen-user (%s)", u.ID)
	}
	if err := kube.Get(context.Background(), types.NamespacedName{Namespace: unassignedNS, Name: "frozen-user-credentials"}, &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a frozen order delivered a Secret (err %v)", err)
	}
	if err := kube.Delete(context.Background(), got); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
}

// TestCollisionsTouchNothing: a Keystone user of the same name created
// outside the hub, and the plane's admin identity, are both refused with
// UserCollision; neither is touched and no managed User is created.
func TestCollisionsTouchNothing(t *testing.T) {
	ctx := context.Background()
	foreign, err := users.Create(ctx, identity, users.CreateOpts{Name: "foreign-user", DomainID: "default",
		Password: "foreign-password-1", Description: "created outside the hub"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = users.Delete(context.Background(), identity, foreign.ID).ExtractErr() })

	ku := userOrder(tenantNS, "foreign-user")
	create(t, ku)
	waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonUserCollision)
	admin := userOrder(tenantNS, "admin-user")
	admin.Spec.UserName = "ADMIN" // Keystone folds case: the plane's admin identity
	create(t, admin)
	waitFor(t, admin, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonUserCollision)

	for _, o := range []*c5c3v1alpha1.KeystoneUser{ku, admin} {
		err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: childName(o, korc.DiscUser)}, &orcv1alpha1.User{})
		if !apierrors.IsNotFound(err) {
			t.Fatalf("%s: a managed K-ORC User exists despite the collision (err %v)", o.Name, err)
		}
	}
	if _, err := testenv.Authenticate(ctx, cloudsyaml.Password(cloudsyaml.PasswordParams{AuthURL: stack.Keystone.URL,
		Username: "foreign-user", Password: "foreign-password-1", UserDomainName: "Default"})); err != nil {
		t.Fatalf("the foreign user's password no longer works: %v", err)
	}
	if u := keystoneUser(t, "foreign-user"); u == nil || u.ID != foreign.ID || u.Description != "created outside the hub" {
		t.Fatalf("the foreign user changed: %+v", u)
	}
	if _, err := testenv.Authenticate(ctx, cloudsyaml.Password(cloudsyaml.PasswordParams{AuthURL: stack.Keystone.URL,
		Username: stack.Keystone.AdminUser, Password: stack.Keystone.AdminPassword, UserDomainName: stack.Keystone.AdminUserDomain})); err != nil {
		t.Fatalf("the admin password no longer works: %v", err)
	}

	// Deleting the refused orders leaves the foreign user alone.
	for _, o := range []*c5c3v1alpha1.KeystoneUser{ku, admin} {
		if err := kube.Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
		waitGone(t, o)
	}
	if u := keystoneUser(t, "foreign-user"); u == nil || u.ID != foreign.ID {
		t.Fatal("deleting the refused order deleted the foreign user")
	}
}

// TestForeignSecretIsRefused: a Secret <name>-credentials the order does
// not own is never taken over.
func TestForeignSecretIsRefused(t *testing.T) {
	ctx := context.Background()
	foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "refused-credentials", Namespace: tenantNS},
		Data: map[string][]byte{"clouds.yaml": []byte("somebody else's")}}
	create(t, foreign)
	ku := userOrder(tenantNS, "refused")
	create(t, ku)
	waitFor(t, ku, c5c3v1alpha1.ConditionDeliveryReady, c5c3v1alpha1.ReasonDeliveryRefused)
	waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonUserProvisioned)
	var s corev1.Secret
	if err := kube.Get(ctx, client.ObjectKeyFromObject(foreign), &s); err != nil {
		t.Fatal(err)
	}
	if string(s.Data["clouds.yaml"]) != "somebody else's" || len(s.Data) != 1 || len(s.OwnerReferences) != 0 ||
		s.Labels["c5c3.io/keystoneuser-name"] != "" {
		t.Fatalf("the foreign Secret was touched: data keys %d, owners %v, labels %v", len(s.Data), s.OwnerReferences, s.Labels)
	}
	if err := kube.Delete(ctx, ku); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
	if err := kube.Get(ctx, client.ObjectKeyFromObject(foreign), &s); err != nil {
		t.Fatalf("the foreign Secret is gone after the order's deletion: %v", err)
	}
	if u := keystoneUser(t, "refused"); u != nil {
		t.Fatalf("Keystone still has user refused (%s)", u.ID)
	}
}

// TestDeletionHeldByApplicationCredential: while a
// KeystoneApplicationCredential references the user, its deletion holds at
// ReferencedByApplicationCredentials and the Keystone user stays; deleting
// the credential order releases it.
func TestDeletionHeldByApplicationCredential(t *testing.T) {
	ctx := context.Background()
	ku := userOrder(tenantNS, "held")
	create(t, ku)
	got := waitFor(t, ku, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	ac := &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Name: "held-ac", Namespace: tenantNS},
		Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{
			ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS},
			UserRef:         c5c3v1alpha1.OrderRef{Name: "held"}, ProjectRef: c5c3v1alpha1.OrderRef{Name: "some-project"}}}
	create(t, ac)
	if err := kube.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonReferencedByApplicationCredentials)
	if err := kube.Get(ctx, client.ObjectKeyFromObject(ku), &c5c3v1alpha1.KeystoneUser{}); err != nil {
		t.Fatalf("the held order is gone: %v", err)
	}
	if u := keystoneUser(t, "held"); u == nil || u.ID != got.Status.UserID {
		t.Fatalf("the Keystone user of a held order changed: %+v", u)
	}
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: childName(ku, korc.DiscUser)}, &orcv1alpha1.User{}); err != nil {
		t.Fatalf("the K-ORC User of a held order: %v", err)
	}
	start := time.Now()
	if err := kube.Delete(ctx, ac); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ku)
	t.Logf("credential order deleted -> user order released in %s", time.Since(start).Round(100*time.Millisecond))
	if u := keystoneUser(t, "held"); u != nil {
		t.Fatalf("Keystone still has user held (%s)", u.ID)
	}
	if n := children(t, ku); n != 0 {
		t.Fatalf("%d children are still listed", n)
	}
}
