//go:build integration

package tenant

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// TestTenantFirstCredentialWaitsForTheBudget: with rotationsPerHour 2 a
// tenant with edit orders a user and a credential (one token each); a second
// credential of the same user then waits at
// CredentialReady=False/RotationBudgetExhausted and gets no credential
// (docs/reference/controlplane.md, "Rotation budget").
func TestTenantFirstCredentialWaitsForTheBudget(t *testing.T) {
	const ns = firstNS
	assign(t, ns, 2)
	tenant := stack.EditTenant(t, kube, orderRolesFile, ns, waitTimeout)
	orders := newOrderSet(t)
	ku := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: cpRef}}
	kp := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: "app-project", Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: cpRef}}
	ra := assignment(ns, "first-member", member)
	credential := func(name string) *c5c3v1alpha1.KeystoneApplicationCredential {
		return &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{ControlPlaneRef: cpRef,
				UserRef: c5c3v1alpha1.OrderRef{Name: ku.Name}, ProjectRef: c5c3v1alpha1.OrderRef{Name: kp.Name},
				Rotation: &c5c3v1alpha1.ApplicationCredentialRotationSpec{Interval: &metav1.Duration{Duration: 24 * time.Hour},
					GracePeriod: &metav1.Duration{Duration: time.Hour}}}}
	}
	first := credential("first-cred")
	for _, o := range []client.Object{ku, kp, ra, first} {
		orders.create(t, tenant, o)
	}
	for _, o := range []client.Object{ku, kp, ra, first} {
		waitReady(t, o)
	}
	second := credential("second-cred")
	orders.create(t, tenant, second)
	held := waitReason(t, second, c5c3v1alpha1.ConditionCredentialReady, c5c3v1alpha1.ReasonRotationBudgetExhausted)
	if c := meta.FindStatusCondition(held.Status.Conditions, c5c3v1alpha1.ConditionCredentialReady); c.Status != metav1.ConditionFalse {
		t.Errorf("CredentialReady %+v; want False while the first credential waits", c)
	}
	if held.Status.CredentialID != "" {
		t.Errorf("status.credentialID %q while the first credential waits", held.Status.CredentialID)
	}
}
