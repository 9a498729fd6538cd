package orders

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ConditionEvent is the Kubernetes event an order emits for one condition
// whose status or reason changed in a pass.
type ConditionEvent struct {
	// Type is corev1.EventTypeNormal for a True condition, else Warning.
	Type string
	// Reason is the condition's reason.
	Reason string
	// Note is "<type>=<status>: <message>".
	Note string
}

// EventActionReconcile is the action of the ConditionEvents.
const EventActionReconcile = "Reconcile"

// ConditionEvents maps the conditions controlplane.SetConditions reported
// as changed to one event each, in order.
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

// PatchStatus patches the status subresource of the order obj (already
// carrying its new status) through c, the order's cluster client, as a merge
// patch from base (obj before the change); with optimisticLock the patch
// carries base's resourceVersion, so a pass that read a stale order and
// changes its status fails with a Conflict and is retried. A pass that
// changes nothing sends nothing:
// the write would be a no-op the apiserver still admits, and a stale read
// that changes nothing overwrites nothing. kind names the order's kind in
// the error.
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
