package listcache

import (
	"context"
	"errors"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 6, 15, 0, 0, 0, time.UTC)

func TestPlan(t *testing.T) {
	t.Parallel()
	p := Policy{MaxAge: 30 * time.Second, MinDemand: 3, PerLookup: 50}
	for _, tc := range []struct {
		name string
		s    State
		now  time.Time
		want Action
	}{
		{"fresh list answers", State{ReadAt: t0, Size: 10000}, t0.Add(30 * time.Second), Answer},
		{"stale list, too little demand", State{ReadAt: t0, Previous: 1, Demand: 1}, t0.Add(31 * time.Second), Own},
		{"never read, too little demand", State{Previous: 2}, t0, Own},
		{"never read, demand", State{Previous: 3}, t0, Read},
		{"stale list, demand", State{ReadAt: t0, Size: 150, Previous: 3}, t0.Add(time.Minute), Read},
		{"stale list too large for the demand", State{ReadAt: t0, Size: 151, Previous: 2, Demand: 1}, t0.Add(time.Minute), Own},
		{"a burst after a quiet window reads", State{Demand: 3}, t0, Read},
		{"both windows count", State{Previous: 1, Demand: 2}, t0, Read},
		{"held off after a failed read", State{ReadAt: t0, Previous: 9, HoldUntil: t0.Add(5 * time.Minute)}, t0.Add(time.Minute), Own},
		{"the hold ends", State{ReadAt: t0, Previous: 9, HoldUntil: t0.Add(5 * time.Minute)}, t0.Add(5 * time.Minute), Read},
	} {
		if got := Plan(p, tc.s, tc.now); got != tc.want {
			t.Errorf("%s: Plan = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCount_RollsWindows(t *testing.T) {
	t.Parallel()
	p := Policy{MaxAge: 30 * time.Second}
	s := State{}
	for i := range 4 {
		s = Count(p, s, t0.Add(time.Duration(i)*time.Second))
	}
	if s.Demand != 4 || s.Previous != 0 || !s.Window.Equal(t0) {
		t.Fatalf("first window: %+v", s)
	}
	s = Count(p, s, t0.Add(30*time.Second))
	if s.Demand != 1 || s.Previous != 4 {
		t.Fatalf("next window: %+v, want Demand 1, Previous 4", s)
	}
	s = Count(p, s, t0.Add(90*time.Second))
	if s.Demand != 1 || s.Previous != 0 {
		t.Fatalf("after an empty window: %+v, want Demand 1, Previous 0", s)
	}
}

// TestCache_ReadsOnDemandAndAnswersUntilMaxAge: a key's lookups are the
// caller's own until MinDemand of them came; then one list
// answers every lookup for MaxAge, an item it lacks stays the caller's own;
// a failed list is not retried before FailHold MaxAges.
func TestCache_ReadsOnDemandAndAnswersUntilMaxAge(t *testing.T) {
	t.Parallel()
	now := t0
	c := &Cache[string]{Policy: Policy{MaxAge: 30 * time.Second, MinDemand: 2, PerLookup: 10}, Now: func() time.Time { return now }}
	reads := 0
	var fail error
	fetch := func(context.Context) (map[string]string, int, error) {
		reads++
		return map[string]string{"a": "A", "b": "B"}, 2, fail
	}
	ctx := context.Background()
	look := func(item string) (string, bool) { return c.Lookup(ctx, "plane|domain", item, fetch) }

	if _, ok := look("a"); ok {
		t.Fatal("answered before any demand")
	}
	if v, ok := look("a"); !ok || v != "A" {
		t.Fatalf("second lookup (MinDemand 2): %q %v, want A true", v, ok)
	}
	if v, ok := look("b"); !ok || v != "B" || reads != 1 {
		t.Fatalf("lookup of b: %q %v after %d reads, want B true after 1", v, ok, reads)
	}
	if _, ok := look("c"); ok {
		t.Fatal("an item the list lacks was answered")
	}
	now = now.Add(30 * time.Second)
	if _, ok := look("a"); !ok || reads != 1 {
		t.Fatalf("at MaxAge: ok %v after %d reads, want the same list", ok, reads)
	}
	now = now.Add(time.Second)
	fail = errors.New("keystone down")
	if _, ok := look("a"); ok || reads != 2 {
		t.Fatalf("failed list: ok %v after %d reads, want own after 2", ok, reads)
	}
	now = now.Add(FailHold*30*time.Second - time.Second)
	for range 3 { // demand enough, but held
		if _, ok := look("a"); ok || reads != 2 {
			t.Fatalf("during the hold after a failed list: ok %v after %d reads, want own, no new read", ok, reads)
		}
	}
	now, fail = now.Add(time.Second), nil
	if _, ok := look("a"); !ok || reads != 3 {
		t.Fatalf("after the hold: ok %v after %d reads, want a new list", ok, reads)
	}
}

// TestCache_KeysApart: demand and lists are per key.
func TestCache_KeysApart(t *testing.T) {
	t.Parallel()
	now := t0
	c := &Cache[int]{Policy: Policy{MaxAge: time.Second, MinDemand: 2, PerLookup: 10}, Now: func() time.Time { return now }}
	fetch := func(v int) Fetch[int] {
		return func(context.Context) (map[string]int, int, error) { return map[string]int{"x": v}, 1, nil }
	}
	ctx := context.Background()
	c.Lookup(ctx, "k1", "x", fetch(1))
	if v, ok := c.Lookup(ctx, "k1", "x", fetch(1)); !ok || v != 1 {
		t.Fatalf("k1: %v %v", v, ok)
	}
	if _, ok := c.Lookup(ctx, "k2", "x", fetch(2)); ok {
		t.Fatal("k2 answered on k1's demand")
	}
}
