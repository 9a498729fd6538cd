// Package conditions holds the hub's condition toolkit: named policy
// chains that derive one condition from an observation, first match wins
// (in the way of cert-manager's internal/controller/certificates/policies),
// and the rungs the hub kinds share. Each condition's rungs and reasons are
// listed on its kind's docs/reference page ("Conditions").
package conditions

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Verdict is what a policy decides: the condition's reason and message;
// True only for a chain's success rung.
type Verdict struct {
	Reason, Message string
	True            bool
}

// Policy is one rung of a chain: decided reports whether it speaks for o.
// A policy MUST be pure.
type Policy[O any] func(o O) (v Verdict, decided bool)

// Chain is an ordered list of policies; the first that decides wins. Its
// last policy SHOULD always decide (the success rung).
type Chain[O any] []Policy[O]

// Evaluate returns the verdict of the first policy that decides; with none,
// the zero Verdict (a False condition with no reason, which the API server
// refuses: a chain without a final rung is a bug).
func (c Chain[O]) Evaluate(o O) Verdict {
	for _, p := range c {
		if v, ok := p(o); ok {
			return v
		}
	}
	return Verdict{}
}

// Condition is the condition of type typ for o at generation gen: the
// chain's verdict, status True only for a True verdict.
func (c Chain[O]) Condition(typ string, o O, gen int64) metav1.Condition {
	v := c.Evaluate(o)
	st := metav1.ConditionFalse
	if v.True {
		st = metav1.ConditionTrue
	}
	return metav1.Condition{Type: typ, Status: st, ObservedGeneration: gen, Reason: v.Reason, Message: v.Message}
}

// False decides a False verdict with reason and msg.
func False(reason, msg string) (Verdict, bool) { return Verdict{Reason: reason, Message: msg}, true }

// True decides the success verdict with reason and msg.
func True(reason, msg string) (Verdict, bool) {
	return Verdict{Reason: reason, Message: msg, True: true}, true
}

// Next is a policy's "not mine": the chain goes on.
func Next() (Verdict, bool) { return Verdict{}, false }

// GateClosed is the rung of a closed gate (Gate): its reason and
// message.
func GateClosed[O any](gate func(O) Gate) Policy[O] {
	return func(o O) (Verdict, bool) {
		if g := gate(o); !g.Passed() {
			return False(g.Reason, g.Message)
		}
		return Next()
	}
}

// Failed is the rung of a Kubernetes-level failure: reason with the error's
// text.
func Failed[O any](reason string, err func(O) error) Policy[O] {
	return func(o O) (Verdict, bool) {
		if e := err(o); e != nil {
			return False(reason, e.Error())
		}
		return Next()
	}
}
