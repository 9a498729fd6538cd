package main

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

func readyObj(kind, name, status string) *unstructured.Unstructured {
	u := obj("v1", kind, name, nil)
	if status != "" {
		_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"type": "Ready", "status": status}}, "status", "conditions")
	}
	return u
}

// The set is ready only when every object of it is, an object outside the
// set counts for nothing, and an object that went (also as a tombstone)
// is no longer ready.
func TestReadyStateCountsTheSetOnly(t *testing.T) {
	set := []*unstructured.Unstructured{readyObj("Queue", "q-1", ""), readyObj("Queue", "q-2", ""), readyObj("Binding", "b-1", "")}
	s := newReadyState(set)
	ready := conditionTrue("Ready", false)

	s.onEvent(readyObj("Queue", "q-1", "True"), ready, false)
	s.onEvent(readyObj("Queue", "other", "True"), ready, false)
	s.onEvent(readyObj("Binding", "b-1", "False"), ready, false)
	if good, byKind := s.count(), s.describe(); good != 1 || byKind != "Binding 0/1, Queue 1/2" {
		t.Fatalf("count = %d %q, want 1 \"Binding 0/1, Queue 1/2\"", good, byKind)
	}
	select {
	case <-s.wakeup:
	default:
		t.Fatal("an event of the set did not wake the waiter")
	}

	s.onEvent(readyObj("Queue", "q-2", "True"), ready, false)
	s.onEvent(readyObj("Binding", "b-1", "True"), ready, false)
	if good := s.count(); good != 3 {
		t.Fatalf("count = %d, want 3", good)
	}
	s.onEvent(cache.DeletedFinalStateUnknown{Key: "ns/q-1", Obj: readyObj("Queue", "q-1", "True")}, ready, true)
	if good, byKind := s.count(), s.describe(); good != 2 || byKind != "Binding 1/1, Queue 1/2" {
		t.Fatalf("after a deletion count = %d %q, want 2 \"Binding 1/1, Queue 1/2\"", good, byKind)
	}
}

func TestQuantiles(t *testing.T) {
	t.Parallel()
	s := func(n ...int) []time.Duration {
		out := make([]time.Duration, len(n))
		for i, v := range n {
			out[i] = time.Duration(v) * time.Second
		}
		return out
	}
	tests := []struct {
		name           string
		in             []time.Duration
		p50, p90, most time.Duration
	}{
		{"none", nil, 0, 0, 0},
		{"one", s(7), 7 * time.Second, 7 * time.Second, 7 * time.Second},
		{"ten, unsorted", s(10, 1, 9, 2, 8, 3, 7, 4, 6, 5), 5 * time.Second, 9 * time.Second, 10 * time.Second},
		{"three", s(30, 10, 20), 20 * time.Second, 30 * time.Second, 30 * time.Second},
	}
	for _, tc := range tests {
		p50, p90, most := quantiles(tc.in)
		if p50 != tc.p50 || p90 != tc.p90 || most != tc.most {
			t.Errorf("%s: quantiles = %v, %v, %v; want %v, %v, %v", tc.name, p50, p90, most, tc.p50, tc.p90, tc.most)
		}
	}
}
