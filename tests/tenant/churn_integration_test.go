//go:build integration

package tenant

import (
	"context"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestTenantRecreatedOrdersSpendTheBudget: with rotationsPerHour 2 a tenant
// with edit creates, deletes and re-creates a KeystoneUser order. Each
// creation's first password takes a token; the third creation waits at
// UserReady=False/RotationBudgetExhausted naming the budget, and Keystone
// holds no user of that name (docs/reference/controlplane.md, "Rotation
// budget").
func TestTenantRecreatedOrdersSpendTheBudget(t *testing.T) {
	ctx := context.Background()
	const ns = churnNS
	assign(t, ns, 2)
	tenant := stack.EditTenant(t, kube, orderRolesFile, ns, waitTimeout)
	order := func() *c5c3v1alpha1.KeystoneUser {
		return &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "churn", Namespace: ns},
			Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: cpRef}}
	}
	for range 2 {
		ku := order()
		if err := tenant.Create(ctx, ku); err != nil {
			t.Fatal(err)
		}
		waitReady(t, ku)
		if err := tenant.Delete(ctx, ku); err != nil {
			t.Fatal(err)
		}
		deleteAndWaitGone(t, ku)
	}
	ku := order()
	newOrderSet(t).create(t, tenant, ku)
	held := waitReason(t, ku, c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ReasonRotationBudgetExhausted)
	c := meta.FindStatusCondition(held.Status.Conditions, c5c3v1alpha1.ConditionUserReady)
	for _, want := range []string{"no Keystone user is created yet", "the first password", "2 per hour", "rotationsPerHour"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("UserReady message %q does not say %q", c.Message, want)
		}
	}
	if held.Status.UserID != "" {
		t.Errorf("status.userID %q while the first password waits", held.Status.UserID)
	}
	found, err := testenv.KeystoneAll(ctx, users.List(identity, users.ListOpts{Name: ku.Name}), users.ExtractUsers)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 0 {
		t.Errorf("Keystone holds %d user(s) named %s while the third creation waits: %+v", len(found), ku.Name, found)
	}
}
