//go:build integration

package tenant

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// update re-reads obj as c and applies mut until the update succeeds.
func update[T client.Object](t *testing.T, c client.Client, obj T, mut func(T)) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "update "+obj.GetName(), func() error {
		cur := obj.DeepCopyObject().(T)
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), cur); err != nil {
			return err
		}
		mut(cur)
		return c.Update(context.Background(), cur)
	})
}

// TestTenantBudgetHeldUserKeepsReferences: a tenant with edit orders a user,
// a project, a role assignment and an application credential, then raises
// spec.passwordGeneration until the namespace's rotation budget holds the
// user (UserReady=False/RotationBudgetExhausted). The user keeps its
// Keystone id and delivered password, so its references stay usable: the
// credential, re-reconciled at a new generation, and a role assignment
// created while the rotation waits are Ready, not WaitingForUser
// (orders.UserProvisioned; docs/reference/controlplane.md, "Rotation budget").
func TestTenantBudgetHeldUserKeepsReferences(t *testing.T) {
	const ns = refsNS
	// Three tokens: the user's first password, the credential's first
	// credential and the user's rotation to generation 2.
	assign(t, ns, 3)
	tenant := stack.EditTenant(t, kube, orderRolesFile, ns, waitTimeout)
	orders := newOrderSet(t)

	ku := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: cpRef}}
	kp := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: "app-project", Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: cpRef}}
	ra := assignment(ns, "app-member", member)
	ac := &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Name: "app-cred", Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{ControlPlaneRef: cpRef,
			UserRef: c5c3v1alpha1.OrderRef{Name: ku.Name}, ProjectRef: c5c3v1alpha1.OrderRef{Name: kp.Name},
			Rotation: &c5c3v1alpha1.ApplicationCredentialRotationSpec{Interval: &metav1.Duration{Duration: 24 * time.Hour},
				GracePeriod: &metav1.Duration{Duration: time.Hour}}}}
	for _, o := range []client.Object{ku, kp, ra, ac} {
		orders.create(t, tenant, o)
	}
	for _, o := range []client.Object{ku, kp, ra, ac} {
		waitReady(t, o)
	}

	raise := func(gen int64) {
		t.Helper()
		update(t, tenant, ku, func(u *c5c3v1alpha1.KeystoneUser) { u.Spec.PasswordGeneration = gen })
	}
	raise(2) // the namespace's last token of the hour
	testenv.Eventually(t, waitTimeout, "password generation 2 delivered", func() error {
		var cur c5c3v1alpha1.KeystoneUser
		if err := kube.Get(context.Background(), client.ObjectKeyFromObject(ku), &cur); err != nil {
			return err
		}
		if cur.Status.PasswordGeneration != 2 || !meta.IsStatusConditionTrue(cur.Status.Conditions, c5c3v1alpha1.ConditionReady) {
			return fmt.Errorf("status.passwordGeneration %d, conditions %v", cur.Status.PasswordGeneration, cur.Status.Conditions)
		}
		return nil
	})
	raise(3)
	held := waitReason(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonRotationBudgetExhausted)
	if held.Status.UserID == "" || held.Status.PasswordGeneration != 2 {
		t.Fatalf("the held user reports userID %q, passwordGeneration %d; want its id and generation 2",
			held.Status.UserID, held.Status.PasswordGeneration)
	}

	// A pass of the credential at a new generation while the rotation waits.
	update(t, tenant, ac, func(a *c5c3v1alpha1.KeystoneApplicationCredential) {
		a.Spec.Rotation.GracePeriod = &metav1.Duration{Duration: 2 * time.Hour}
	})
	waitReason(t, ac, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	// A reference created while the rotation waits.
	readerRA := assignment(ns, "app-reader", reader)
	orders.create(t, tenant, readerRA)
	waitReady(t, readerRA)
	got := waitReason(t, ac, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	if c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionCredentialReady); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("CredentialReady %+v while the user's rotation waits", c)
	}
	readyNow(t, ra, "while the user's rotation waits")
	if c := meta.FindStatusCondition(waitReason(t, ku, c5c3v1alpha1.ConditionUserReady,
		c5c3v1alpha1.ReasonRotationBudgetExhausted).Status.Conditions, c5c3v1alpha1.ConditionUserReady); !strings.Contains(c.Message, "generation 3") {
		t.Errorf("UserReady message %q does not name the waiting generation 3", c.Message)
	}
}

// assignment is a KeystoneRoleAssignment of role for the user "app" on
// the project "app-project" in ns.
func assignment(ns, name, role string) *c5c3v1alpha1.KeystoneRoleAssignment {
	return &c5c3v1alpha1.KeystoneRoleAssignment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneRoleAssignmentSpec{ControlPlaneRef: cpRef, UserRef: c5c3v1alpha1.OrderRef{Name: "app"},
			ProjectRef: c5c3v1alpha1.OrderRef{Name: "app-project"}, Role: c5c3v1alpha1.KeystoneName(role)}}
}

// waitReady waits until o reads Ready=True at its current generation.
func waitReady(t *testing.T, o client.Object) {
	t.Helper()
	cur := o.DeepCopyObject().(client.Object)
	testenv.Eventually(t, waitTimeout, fmt.Sprintf("%T %s Ready", o, o.GetName()), func() error {
		if err := kube.Get(context.Background(), client.ObjectKeyFromObject(o), cur); err != nil {
			return err
		}
		c := meta.FindStatusCondition(conditionsOf(cur), c5c3v1alpha1.ConditionReady)
		if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != cur.GetGeneration() {
			return fmt.Errorf("Ready %+v at generation %d", c, cur.GetGeneration())
		}
		return nil
	})
}
