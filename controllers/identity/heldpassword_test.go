package identity

import (
	"crypto/sha256"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func TestProbeDue(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sum := sha256.Sum256([]byte("pw"))
	other := sha256.Sum256([]byte("other"))
	held := heldPassword{uid: "u1", userID: "k1", sum: sum, at: t0}
	for _, tc := range []struct {
		name   string
		last   heldPassword
		ok     bool
		userID string
		sum    [sha256.Size]byte
		resync bool
		now    time.Time
		want   bool
	}{
		{"nothing remembered (first apply, restart): probe", heldPassword{}, false, "k1", sum, false, t0, true},
		{"the Secret's value changed: probe at once", held, true, "k1", other, false, t0.Add(time.Second), true},
		{"a re-created resource: probe", heldPassword{uid: "u0", userID: "k1", sum: sum, at: t0}, true, "k1", sum, false, t0, true},
		{"another Keystone user (re-created): probe", held, true, "k2", sum, false, t0.Add(time.Second), true},
		{"a spec edit, same value: no probe", held, true, "k1", sum, false, t0.Add(time.Hour), false},
		{"resync before the interval: no probe", held, true, "k1", sum, true, t0.Add(MinResync - time.Second), false},
		{"resync 30 s later (a sweep-sized period): no probe", held, true, "k1", sum, true, t0.Add(30 * time.Second), false},
		{"resync at the interval: probe", held, true, "k1", sum, true, t0.Add(MinResync), true},
		{"resync long after: probe", held, true, "k1", sum, true, t0.Add(time.Hour), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := probeDue(tc.last, tc.ok, "u1", tc.userID, tc.sum, tc.resync, tc.now, MinResync); got != tc.want {
				t.Errorf("probeDue = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestHeldPasswords(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := types.NamespacedName{Namespace: "ns", Name: "a"}
	h := newHeldPasswords()
	if !h.due(a, "u1", "k1", "x", true, t0, MinResync) {
		t.Fatal("nothing held, but no probe due")
	}
	h.note(a, "u1", "k1", "x", t0)
	if h.due(a, "u1", "k1", "x", true, t0.Add(time.Minute), MinResync) {
		t.Error("held one minute ago: probe due on the resync")
	}
	if !h.due(a, "u1", "k1", "y", false, t0.Add(time.Minute), MinResync) {
		t.Error("new value: no probe due")
	}
	h.forget(a)
	if !h.due(a, "u1", "k1", "x", false, t0.Add(time.Minute), MinResync) {
		t.Error("forgotten (disabled or deleted): no probe due")
	}
	var none *heldPasswords
	none.note(a, "u1", "k1", "x", t0)
	if !none.due(a, "u1", "k1", "x", false, t0, MinResync) {
		t.Error("a nil memory must probe every time")
	}
}
