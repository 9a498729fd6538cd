package conditions

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// Event is one event a status write records.
type Event struct {
	// Type is corev1.EventTypeNormal for Ready=True, else Warning.
	Type   string
	Reason string
	// Note is "<type>=<status>: <message>" of the condition the event is
	// about.
	Note string
}

// Events is the event policy of one status write (docs/hub.md, "Condition
// events"): before are the conditions before the write, want the pass's
// conditions in order, changed those whose status or reason changed (Set).
//
//   - Ready's status changed (or Ready is new): one event, Normal for True,
//     Warning otherwise, with the reason and message of the condition that
//     decides Ready: the first sub-condition of want that is not True, else
//     Ready itself.
//   - Then each changed condition that is not True and whose reason is a
//     failure (not Progress), unless an event of this write already carries
//     its reason: a Warning (Ready's own reason counts when it decides
//     itself).
//
// A changed condition that is True or progress records nothing. Pure.
func Events(before, want, changed []metav1.Condition) []Event {
	var out []Event
	said := map[string]bool{}
	add := func(c metav1.Condition, typ string) {
		said[c.Reason] = true
		out = append(out, Event{Type: typ, Reason: c.Reason, Note: fmt.Sprintf("%s=%s: %s", c.Type, c.Status, c.Message)})
	}
	prev := meta.FindStatusCondition(before, c5c3v1alpha1.ConditionReady)
	ready := meta.FindStatusCondition(want, c5c3v1alpha1.ConditionReady)
	if ready != nil && (prev == nil || prev.Status != ready.Status) {
		if ready.Status == metav1.ConditionTrue {
			add(*ready, corev1.EventTypeNormal)
		} else {
			add(decider(*ready, want), corev1.EventTypeWarning)
		}
	}
	for _, c := range changed {
		if c.Status == metav1.ConditionTrue || Progress(c.Reason) || said[c.Reason] {
			continue
		}
		if c.Type == c5c3v1alpha1.ConditionReady && decider(c, want).Type != c.Type {
			continue
		}
		add(c, corev1.EventTypeWarning)
	}
	return out
}

// decider is the condition that decides ready (not True): the first
// sub-condition of want that is not True, else ready itself.
func decider(ready metav1.Condition, want []metav1.Condition) metav1.Condition {
	for _, c := range want {
		if c.Type != c5c3v1alpha1.ConditionReady && c.Status != metav1.ConditionTrue {
			return c
		}
	}
	return ready
}
