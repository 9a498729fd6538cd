package orders

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ConditionEvent is the event for one condition whose status or reason changed.
type ConditionEvent struct {
	// Type is corev1.EventTypeNormal for a True condition, else Warning.
	Type   string
	Reason string
	// Note is "<type>=<status>: <message>".
	Note string
}

const EventActionReconcile = "Reconcile"

// ConditionEvents maps changed conditions to one event each, in order.
func ConditionEvents(changed []metav1.Condition) []ConditionEvent {
	out := make([]ConditionEvent, 0, len(changed))
	for _, c := range changed {
		typ := corev1.EventTypeNormal
		if c.Status != metav1.ConditionTrue {
			typ = corev1.EventTypeWarning
		}
		out = append(out, ConditionEvent{Type: typ, Reason: c.Reason, Note: fmt.Sprintf("%s=%s: %s", c.Type, c.Status, c.Message)})
	}
	return out
}

// PatchStatus merge-patches obj's status from base through c; with
// optimisticLock a stale read fails with a Conflict. No change sends nothing.
func PatchStatus(ctx context.Context, c client.Client, obj, base client.Object, kind string, optimisticLock bool) error {
	patch := client.MergeFrom(base)
	if data, err := patch.Data(obj); err == nil && string(data) == "{}" {
		return nil
	}
	if optimisticLock {
		patch = client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})
	}
	if err := c.Status().Patch(ctx, obj, patch); err != nil {
		return fmt.Errorf("write %s status: %w", kind, err)
	}
	return nil
}
