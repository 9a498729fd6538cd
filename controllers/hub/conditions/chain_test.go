package conditions

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type obs struct {
	gate Gate
	err  error
}

var chain = Chain[obs]{
	GateClosed(func(o obs) Gate { return o.gate }),
	Failed("Broken", func(o obs) error { return o.err }),
	func(obs) (Verdict, bool) { return True("Fine", "all good") },
}

func TestChain_FirstMatchWins(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		o      obs
		status metav1.ConditionStatus
		reason string
		msg    string
	}{
		{"a closed gate comes first", obs{gate: Gate{Reason: "Frozen", Message: "frozen"}, err: errors.New("x")}, metav1.ConditionFalse, "Frozen", "frozen"},
		{"a failure", obs{err: errors.New("boom")}, metav1.ConditionFalse, "Broken", "boom"},
		{"the success rung", obs{}, metav1.ConditionTrue, "Fine", "all good"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := chain.Condition("Ready", tc.o, 7)
			if c.Type != "Ready" || c.Status != tc.status || c.Reason != tc.reason || c.Message != tc.msg || c.ObservedGeneration != 7 {
				t.Errorf("Condition = %+v; want %s/%s %q at generation 7", c, tc.status, tc.reason, tc.msg)
			}
		})
	}
	if v := (Chain[obs]{}).Evaluate(obs{}); v != (Verdict{}) {
		t.Errorf("an empty chain decided %+v", v)
	}
}
