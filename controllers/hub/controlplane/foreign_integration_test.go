//go:build integration

package controlplane

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/internal/testenv"
)

// snapshot is what a test compares of an object the plane must not touch:
// its UID, labels, owner references, spec (nil for a ServiceAccount) and
// whether the reconciler's field manager ever wrote it.
type snapshot struct {
	uid    string
	labels map[string]string
	owners []metav1.OwnerReference
	spec   any
	ours   bool
}

func snap(o client.Object) snapshot {
	s := snapshot{uid: string(o.GetUID()), labels: maps.Clone(o.GetLabels()), owners: o.GetOwnerReferences()}
	if u, ok := o.(*unstructured.Unstructured); ok {
		s.spec = u.Object["spec"]
	}
	for _, m := range o.GetManagedFields() {
		if m.Manager == ControllerName {
			s.ours = true
		}
	}
	return s
}

// untouched fails unless o (re-read) still matches before and the
// reconciler's field manager never wrote it.
func untouched(t *testing.T, what string, o client.Object, before snapshot) {
	t.Helper()
	if err := kube.Get(context.Background(), client.ObjectKeyFromObject(o), o); err != nil {
		t.Fatalf("%s: %v (it must not be deleted)", what, err)
	}
	after := snap(o)
	if after.ours || !reflect.DeepEqual(before, after) {
		t.Errorf("%s changed:\n before %+v\n after  %+v", what, before, after)
	}
}

// waitStoreRefused waits until the plane's AdminCredentialReady is
// False/SecretStoreNotReady with every string of want in its message, and
// returns the message.
func waitStoreRefused(t *testing.T, cp *c5c3v1alpha1.ControlPlane, want ...string) string {
	t.Helper()
	var msg string
	eventually(t, waitTimeout, "SecretStoreNotReady naming "+strings.Join(want, ", "), func() error {
		var got c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), client.ObjectKeyFromObject(cp), &got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != c5c3v1alpha1.ReasonSecretStoreNotReady {
			return fmt.Errorf("condition is %+v", c)
		}
		for _, w := range want {
			if !strings.Contains(c.Message, w) {
				return fmt.Errorf("message %q lacks %q", c.Message, w)
			}
		}
		testenv.ObservedCondition(t, &got, *c)
		msg = c.Message
		return nil
	})
	return msg
}

// TestIntegration_ForeignTenantObjectsAreNotTakenOver is the confused
// deputy: a plane names, as its store, the SecretStore b-private another
// namespace made for itself, and consents to that namespace. The plane
// neither rewrites nor (once the namespace is de-listed) deletes that
// store or the namespace's own ServiceAccount of the hub's name; it reports
// SecretStoreNotReady naming them and the remedy. What it created itself
// (the ServiceAccount in a namespace that had none) it does delete on
// de-listing.
func TestIntegration_ForeignTenantObjectsAreNotTakenOver(t *testing.T) {
	ctx := context.Background()
	const victim, storeOnly, store = "fo-b", "fo-c", "b-private"
	var stores []*unstructured.Unstructured
	var befores []snapshot
	for _, ns := range []string{victim, storeOnly} {
		mustCreate(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		u, err := eso.SecretStore{Name: store, Namespace: ns, Labels: map[string]string{"team": ns},
			Server: stack.OpenBao.Addr, Mount: "team-" + ns,
			Kubernetes: &eso.KubernetesAuth{MountPath: "team-auth", Role: "team-role", ServiceAccount: "team-sa"}}.Build()
		if err != nil {
			t.Fatal(err)
		}
		mustCreate(t, u)
		stores = append(stores, u)
		befores = append(befores, snap(u))
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: victim, Name: stack.OpenBao.ServiceAccount,
		Labels: map[string]string{"team": victim}}}
	mustCreate(t, sa)
	saBefore := snap(sa)

	cp := newPlane(t, "fo-a", stack.Keystone.URL, stack.Keystone.AdminPassword)
	base := cp.DeepCopy()
	cp.Spec.SecretStoreRef = &c5c3v1alpha1.SecretStoreRefSpec{Kind: "SecretStore", Name: store}
	cp.Spec.KORC.ServiceRegistrations.AllowedNamespaces = []string{victim, storeOnly}
	if err := kube.Patch(ctx, cp, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	msg := waitStoreRefused(t, cp, "ServiceAccount "+victim+"/"+stack.OpenBao.ServiceAccount,
		"SecretStore "+storeOnly+"/"+store, "not provisioned by orderhub")
	t.Logf("AdminCredentialReady=False/SecretStoreNotReady: %s", msg)
	// The namespace without a ServiceAccount of the hub's name gets the
	// plane's; its store stays the namespace's.
	created := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: storeOnly, Name: stack.OpenBao.ServiceAccount}}
	eventually(t, waitTimeout, "the plane's ServiceAccount in "+storeOnly, func() error {
		if err := kube.Get(ctx, client.ObjectKeyFromObject(created), created); err != nil {
			return err
		}
		if NotOurs(cp, created) != "" {
			return fmt.Errorf("labels %v", created.Labels)
		}
		return nil
	})
	// The plane's own namespace is served.
	waitStoreReady(t, cp.Namespace, store)
	for i, u := range stores {
		untouched(t, "SecretStore "+u.GetNamespace()+"/"+store, u, befores[i])
	}
	untouched(t, "ServiceAccount "+victim+"/"+sa.Name, sa, saBefore)

	// De-listing deletes only what the plane created.
	setAllowed(t, cp)
	waitGone(t, "the plane's ServiceAccount in "+storeOnly, created)
	for i, u := range stores {
		untouched(t, "SecretStore "+u.GetNamespace()+"/"+store+" after de-listing", u, befores[i])
	}
	untouched(t, "ServiceAccount "+victim+"/"+sa.Name+" after de-listing", sa, saBefore)
	waitForReason(t, cp, c5c3v1alpha1.ReasonAdminCredentialReady)
}

// TestIntegration_TwoPlanesOneNamespaceDoNotFight: two planes consent to
// one namespace. The first provisions its store and ServiceAccount there;
// the second reports SecretStoreNotReady naming the first plane and leaves
// both objects as the first wrote them (labels and owner unchanged, never
// written by the second).
func TestIntegration_TwoPlanesOneNamespaceDoNotFight(t *testing.T) {
	const shared = "tp-x"
	first := newPlane(t, "tp-1", stack.Keystone.URL, stack.Keystone.AdminPassword, shared)
	waitForReason(t, first, c5c3v1alpha1.ReasonAdminCredentialReady)
	u := waitStoreReady(t, shared, DefaultTenantStoreName)
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: shared, Name: stack.OpenBao.ServiceAccount}}
	if err := kube.Get(context.Background(), client.ObjectKeyFromObject(sa), sa); err != nil {
		t.Fatal(err)
	}
	writtenFor(t, u, first.Name, "")
	writtenFor(t, sa, first.Name, "")
	storeBefore, saBefore := snap(u), snap(sa)
	storeBefore.ours, saBefore.ours = false, false // written by the first plane, under the one field manager

	second := newPlane(t, "tp-2", stack.Keystone.URL, stack.Keystone.AdminPassword)
	setAllowed(t, second, shared)
	msg := waitStoreRefused(t, second, "ServiceAccount "+shared+"/"+sa.Name, "ControlPlane tp-1/cp provisioned it")
	t.Logf("second plane: AdminCredentialReady=False/SecretStoreNotReady: %s", msg)
	for _, o := range []client.Object{u, sa} {
		if err := kube.Get(context.Background(), client.ObjectKeyFromObject(o), o); err != nil {
			t.Fatal(err)
		}
		if got := o.GetLabels()[LabelControlPlaneNamespace]; got != first.Namespace {
			t.Errorf("%T %s/%s: label %s=%q, want the first plane's %q", o, o.GetNamespace(), o.GetName(),
				LabelControlPlaneNamespace, got, first.Namespace)
		}
	}
	after := snap(u)
	after.ours = false
	if !reflect.DeepEqual(storeBefore, after) {
		t.Errorf("the shared store changed:\n before %+v\n after  %+v", storeBefore, after)
	}
	after = snap(sa)
	after.ours = false
	if !reflect.DeepEqual(saBefore, after) {
		t.Errorf("the shared ServiceAccount changed:\n before %+v\n after  %+v", saBefore, after)
	}
	// The first plane still serves the namespace.
	waitForReason(t, first, c5c3v1alpha1.ReasonAdminCredentialReady)
	waitStoreReady(t, shared, DefaultTenantStoreName)
}
