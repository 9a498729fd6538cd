package reconcile

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ConditionReady is the one condition both controllers write.
const ConditionReady = "Ready"

// maxMessage bounds condition messages, as the OpenStack-Helm reconcilers do.
const maxMessage = 1024

// Truncate cuts s to maxMessage bytes, ending in "...".
func Truncate(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	return s[:maxMessage-3] + "..."
}

// Reasons are the Ready reasons of one controller.
type Reasons struct {
	// OK is the reason of Ready=True; Failed of Ready=False unless the
	// record names another.
	OK, Failed string
	// GenerationOnFailure: a failure stamps observedGeneration too (else
	// only a success does).
	GenerationOnFailure bool
}

// ReadyAt reports whether st says Ready=True for generation.
func ReadyAt(st Status, generation int64) bool {
	c := meta.FindStatusCondition(*st.Conditions, ConditionReady)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == generation &&
		*st.ObservedGeneration == generation
}

// Condition is the Ready condition for rec. Pure.
func (r Reasons) Condition(rec Record, generation int64) metav1.Condition {
	c := metav1.Condition{Type: ConditionReady, ObservedGeneration: generation, Message: Truncate(rec.Message)}
	switch {
	case rec.OK:
		c.Status, c.Reason = metav1.ConditionTrue, r.OK
	case rec.Reason != "":
		c.Status, c.Reason = metav1.ConditionFalse, rec.Reason
	default:
		c.Status, c.Reason = metav1.ConditionFalse, r.Failed
	}
	return c
}

// Stamp writes c into st: lastTransitionTime is kept unless the status
// flips (meta.SetStatusCondition, now when it does), observedGeneration
// per GenerationOnFailure.
func (r Reasons) Stamp(st Status, c metav1.Condition, now metav1.Time) {
	c.LastTransitionTime = now
	meta.SetStatusCondition(st.Conditions, c)
	if c.Status == metav1.ConditionTrue || r.GenerationOnFailure {
		*st.ObservedGeneration = c.ObservedGeneration
	}
}

// ReadyEvent is the event policy of a written Ready condition: whether an
// event is due after the status went from prev (nil: none) to c. A flip is
// one, and so is a changed failure message; a first Ready=True is not when
// the pass reported its writes already (reported). Pure.
func ReadyEvent(prev *metav1.Condition, c metav1.Condition, reported bool) (typ string, emit bool) {
	typ = corev1.EventTypeNormal
	if c.Status != metav1.ConditionTrue {
		typ = corev1.EventTypeWarning
	}
	flipped := (prev == nil && (c.Status != metav1.ConditionTrue || !reported)) ||
		(prev != nil && prev.Status != c.Status)
	return typ, flipped || (c.Status != metav1.ConditionTrue && prev != nil && prev.Message != c.Message)
}

// patchStatus writes obj's status over before's when it differs; a
// resource gone meanwhile is no error. It reports whether it wrote.
func patchStatus(ctx context.Context, c client.Client, before, obj client.Object) (bool, error) {
	if same, err := equalStatus(before, obj); err != nil || same {
		return false, err
	}
	if err := c.Status().Patch(ctx, obj, client.MergeFrom(before)); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("writing status: %w", err)
	}
	return true, nil
}

// equalStatus compares the status of two objects of the same kind.
func equalStatus(a, b client.Object) (bool, error) {
	ua, err := runtime.DefaultUnstructuredConverter.ToUnstructured(a)
	if err != nil {
		return false, err
	}
	ub, err := runtime.DefaultUnstructuredConverter.ToUnstructured(b)
	if err != nil {
		return false, err
	}
	return equality.Semantic.DeepEqual(ua["status"], ub["status"]), nil
}
