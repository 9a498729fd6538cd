package identity

import (
	"crypto/sha256"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func TestKnownRejected(t *testing.T) {
	t.Parallel()
	sum := sha256.Sum256([]byte("pw"))
	other := sha256.Sum256([]byte("other"))
	for _, tc := range []struct {
		name string
		last rejectedProbe
		ok   bool
		want bool
	}{
		{"nothing remembered: probe", rejectedProbe{}, false, false},
		{"same value rejected before: write without probing", rejectedProbe{"u1", sum}, true, true},
		{"another value was rejected: probe the new one", rejectedProbe{"u1", other}, true, false},
		{"a re-created resource of the same name: probe", rejectedProbe{"u0", sum}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := knownRejected(tc.last, tc.ok, "u1", sum); got != tc.want {
				t.Errorf("knownRejected = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestProbeBudget(t *testing.T) {
	t.Parallel()
	a := types.NamespacedName{Namespace: "ns", Name: "a"}
	b := types.NamespacedName{Namespace: "ns", Name: "b"}
	pb := newProbeBudget()
	if pb.rejected(a, "u1", "x") {
		t.Fatal("empty budget reports a rejection")
	}
	pb.noteRejected(a, "u1", "x")
	if !pb.rejected(a, "u1", "x") || pb.rejected(a, "u1", "y") || pb.rejected(b, "u1", "x") {
		t.Fatal("the rejection is not kept per (resource, value)")
	}
	pb.forget(a)
	if pb.rejected(a, "u1", "x") {
		t.Error("forget kept the entry")
	}
	var nilBudget *probeBudget
	nilBudget.noteRejected(a, "u", "x")
	nilBudget.forget(a)
	if nilBudget.rejected(a, "u", "x") {
		t.Error("a nil budget remembers")
	}
}
