package reconcile

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestReadyEvent(t *testing.T) {
	t.Parallel()
	ok := metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Message: "fine"}
	bad := metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse, Message: "boom"}
	worse := metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse, Message: "worse"}
	okOther := ok
	okOther.Message = "other"
	cases := []struct {
		name     string
		prev     *metav1.Condition
		c        metav1.Condition
		reported bool
		wantTyp  string
		want     bool
	}{
		{"first Ready after reported writes: none", nil, ok, true, "Normal", false},
		{"first Ready without writes", nil, ok, false, "Normal", true},
		{"first failure", nil, bad, true, "Warning", true},
		{"recovery", &bad, ok, true, "Normal", true},
		{"turning False", &ok, bad, false, "Warning", true},
		{"a changed failure message", &bad, worse, false, "Warning", true},
		{"the same failure", &bad, bad, false, "Warning", false},
		{"a changed Ready message", &ok, okOther, false, "Normal", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			typ, emit := ReadyEvent(c.prev, c.c, c.reported)
			if emit != c.want || (emit && typ != c.wantTyp) {
				t.Fatalf("ReadyEvent = %s %v, want %s %v", typ, emit, c.wantTyp, c.want)
			}
		})
	}
}

func TestConditionAndStamp(t *testing.T) {
	t.Parallel()
	r := Reasons{OK: "Done", Failed: "Failed"}
	if c := r.Condition(Record{Message: "x", Reason: "Duplicate"}, 2); c.Reason != "Duplicate" || c.Status != metav1.ConditionFalse {
		t.Fatalf("a record's reason must win: %+v", c)
	}
	long := make([]byte, 2000)
	for i := range long {
		long[i] = 'a'
	}
	if c := r.Condition(Record{Message: string(long)}, 2); len(c.Message) != maxMessage || c.Reason != "Failed" {
		t.Fatalf("message not truncated to %d: %d, reason %q", maxMessage, len(c.Message), c.Reason)
	}
	var conds []metav1.Condition
	var gen int64
	st := Status{Conditions: &conds, ObservedGeneration: &gen}
	r.Stamp(st, r.Condition(Record{Message: "boom"}, 3), metav1.Now())
	if gen != 0 {
		t.Fatalf("a failure stamped observedGeneration %d without GenerationOnFailure", gen)
	}
	r.GenerationOnFailure = true
	r.Stamp(st, r.Condition(Record{Message: "boom"}, 3), metav1.Now())
	if gen != 3 || ReadyAt(st, 3) {
		t.Fatalf("observedGeneration %d, want 3", gen)
	}
	r.Stamp(st, r.Condition(Record{OK: true}, 4), metav1.Now())
	if !ReadyAt(st, 4) || ReadyAt(st, 5) {
		t.Fatalf("ReadyAt wrong after success: %+v gen %d", conds, gen)
	}
}
