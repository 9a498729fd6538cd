package orders

import (
	"testing"
	"time"

	"k8s.io/utils/ptr"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestRotationBudget(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cp := &c5c3v1alpha1.ControlPlane{Spec: c5c3v1alpha1.ControlPlaneSpec{NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{
		{Namespace: "tenant-a", RotationsPerHour: ptr.To[int32](2)},
		{Namespace: "tenant-b"},
		{Cluster: "edge", Namespace: "tenant-a", RotationsPerHour: ptr.To[int32](1)},
	}}}
	a := Order{Kind: KindKeystoneUser, Namespace: "tenant-a", Name: "u1"}
	a2 := Order{Kind: KindKeystoneApplicationCredential, Namespace: "tenant-a", Name: "c1"}
	edge := Order{Kind: KindKeystoneUser, Cluster: "edge", Namespace: "tenant-a", Name: "u1"}
	platform := Order{Kind: KindKeystoneUser, Namespace: "openstack", Name: "u1"}
	b := NewRotationBudget()

	if h := b.Take(cp, a, t0); h.Held() {
		t.Fatalf("first rotation of tenant-a held: %+v", h)
	}
	if h := b.Take(cp, a2, t0); h.Held() {
		t.Fatalf("second rotation of tenant-a (another kind, same namespace) held: %+v", h)
	}
	h := b.Take(cp, a, t0)
	if !h.Held() || h.PerHour != 2 {
		t.Fatalf("third rotation within the hour: %+v, want held at 2 per hour", h)
	}
	if h.Wait != 30*time.Minute {
		t.Errorf("wait %s, want 30m (one token of 2 per hour)", h.Wait)
	}
	// A refused take spends nothing: the token is free exactly when promised.
	if h := b.Take(cp, a, t0.Add(29*time.Minute)); !h.Held() || h.Wait != time.Minute {
		t.Errorf("after 29 minutes: %+v, want held for 1m", h)
	}
	if h := b.Take(cp, a, t0.Add(30*time.Minute)); h.Held() {
		t.Errorf("after 30 minutes: held %+v", h)
	}
	// Namespaces and clusters have buckets of their own.
	if h := b.Take(cp, edge, t0); h.Held() {
		t.Errorf("tenant-a on cluster edge held by the management cluster's tenant-a: %+v", h)
	}
	if h := b.Take(cp, edge, t0); !h.Held() || h.PerHour != 1 || h.Wait != time.Hour {
		t.Errorf("edge's second rotation: %+v, want held for 1h at 1 per hour", h)
	}
	for i := range DefaultRotationsPerHour {
		if h := b.Take(cp, Order{Namespace: "tenant-b"}, t0); h.Held() {
			t.Fatalf("tenant-b's rotation %d held under the default of %d: %+v", i+1, DefaultRotationsPerHour, h)
		}
	}
	if h := b.Take(cp, Order{Namespace: "tenant-b"}, t0); !h.Held() || h.PerHour != DefaultRotationsPerHour {
		t.Errorf("tenant-b past the default: %+v", h)
	}
	for range 1000 {
		if h := b.Take(cp, platform, t0); h.Held() {
			t.Fatalf("an order outside every assignment held: %+v", h)
		}
	}
	var none *RotationBudget
	if h := none.Take(cp, a, t0); h.Held() {
		t.Errorf("nil budget held: %+v", h)
	}
	// Raising the budget from 2 to 10 adds 8 tokens to the few hundredths
	// refilled since the last take; spent ones stay spent.
	cp.Spec.NamespaceAssignments[0].RotationsPerHour = ptr.To[int32](10)
	t31 := t0.Add(31 * time.Minute)
	for i := range 8 {
		if h := b.Take(cp, a, t31); h.Held() {
			t.Fatalf("take %d after raising the budget to 10: held %+v", i+1, h)
		}
	}
	if h := b.Take(cp, a, t31); !h.Held() || h.PerHour != 10 {
		t.Errorf("ninth take after raising the budget to 10: %+v, want held (a raise is not a refill)", h)
	}
	// Cutting it to 1 leaves the empty bucket empty: the next token comes
	// in an hour at 1 per hour.
	cp.Spec.NamespaceAssignments[0].RotationsPerHour = ptr.To[int32](1)
	if h := b.Take(cp, a, t31); !h.Held() || h.Wait != time.Hour {
		t.Errorf("after cutting the budget to 1: %+v, want held for 1h", h)
	}
	// Cutting a full bucket caps it: tenant-b, untouched since its 60, gets
	// 2 at once after an hour's refill.
	cp.Spec.NamespaceAssignments[1].RotationsPerHour = ptr.To[int32](2)
	later := t0.Add(2 * time.Hour)
	for i := range 2 {
		if h := b.Take(cp, Order{Namespace: "tenant-b"}, later); h.Held() {
			t.Fatalf("tenant-b's take %d after the cut to 2: held %+v", i+1, h)
		}
	}
	if h := b.Take(cp, Order{Namespace: "tenant-b"}, later); !h.Held() || h.PerHour != 2 {
		t.Errorf("tenant-b's third take after the cut to 2: %+v, want held", h)
	}
}

func TestBudgetHoldMessage(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	got := BudgetHold{Wait: 90 * time.Second, PerHour: 4}.Message("the rotation to password generation 3", t0)
	want := "the rotation to password generation 3 waits for this namespace's rotation budget (4 per hour, " +
		"spec.namespaceAssignments[].rotationsPerHour on the ControlPlane) until about 2026-01-01T00:01:30Z; it starts then by itself. " +
		"Raise the budget on the ControlPlane, or rotate less often"
	if got != want {
		t.Errorf("message:\n%s\nwant\n%s", got, want)
	}
}
