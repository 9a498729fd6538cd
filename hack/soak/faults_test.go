package main

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// The fault schedule: n faults, fault i inside the i-th of n equal slots
// (none in the first tenth of the run's first slot), every kind drawn about
// n/len(kinds) times, and the same random source giving the same schedule.
func TestSchedule(t *testing.T) {
	t.Parallel()
	const n = 30
	d := 30 * time.Minute
	plan := schedule(rand.New(rand.NewPCG(1, 0x50a4)), d, n, AllKinds)
	if len(plan) != n {
		t.Fatalf("%d faults, want %d", len(plan), n)
	}
	slot := d / n
	counts := map[string]int{}
	for i, f := range plan {
		lo, hi := time.Duration(i)*slot, time.Duration(i+1)*slot
		if i == 0 {
			lo += slot / 10
		}
		if f.offset < lo || f.offset >= hi {
			t.Errorf("fault %d at %s, want in [%s, %s)", i, f.offset, lo, hi)
		}
		counts[f.kind]++
	}
	for _, k := range AllKinds {
		if counts[k] != n/len(AllKinds) {
			t.Errorf("kind %s drawn %d times, want %d", k, counts[k], n/len(AllKinds))
		}
	}
	again := schedule(rand.New(rand.NewPCG(1, 0x50a4)), d, n, AllKinds)
	if !reflect.DeepEqual(plan, again) {
		t.Error("the same random source gave another schedule")
	}
	if other := schedule(rand.New(rand.NewPCG(2, 0x50a4)), d, n, AllKinds); reflect.DeepEqual(plan, other) {
		t.Error("another random source gave the same schedule")
	}
	if got := schedule(rand.New(rand.NewPCG(1, 0x50a4)), d, 0, AllKinds); got != nil {
		t.Errorf("no faults: got %v", got)
	}
}
