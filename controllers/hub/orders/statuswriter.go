package orders

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/c5c3/orderhub/controllers/hub/controlplane"
)

// StatusUpdate is what one pass writes to an order's status.
type StatusUpdate[S any] struct {
	// Fields is the order's new status; its conditions and
	// observedGeneration are ignored (StatusWriter.Write sets them).
	Fields S
	// Conditions are the pass's conditions, merged into the order's by
	// controlplane.SetConditions.
	Conditions []metav1.Condition
	// Now is the lastTransitionTime of a condition whose status changed.
	Now metav1.Time
}

// StatusWriter is the one status writer of an order kind: T is the order's
// pointer type, S its status type. Every status write of the kind's
// reconciler, in a normal pass (Loop) and in its teardown, goes through
// Write.
type StatusWriter[T client.Object, S any] struct {
	// Kind names the order's kind (one of the Kind constants): the
	// Order.Kind of the loop's requests and the kind in a write error.
	Kind string
	// Fields returns pointers into obj: its status, status.conditions and
	// status.observedGeneration.
	Fields func(obj T) (status *S, conditions *[]metav1.Condition, observedGeneration *int64)
	// Recorder receives one event per changed condition; nil records none.
	Recorder recorder.EventRecorder
	// ManagementEventsOnly records no events for an order on a target
	// cluster: the recorder writes to the management cluster only, and
	// the order's conditions carry the same information.
	ManagementEventsOnly bool
	// OptimisticLock guards the write by the order's resourceVersion
	// (PatchStatus): a pass that read a stale order and changes its status
	// fails with a Conflict (one that changes nothing sends nothing; the
	// newer order's watch event brings the next pass).
	OptimisticLock bool
}

// Write sets u on obj (u.Fields as its status, keeping obj's conditions,
// into which u.Conditions are merged at u.Now; observedGeneration to obj's
// generation), patches the status subresource through c, the order's
// cluster client (PatchStatus, a merge patch from obj as it was), and then
// records an event per condition whose status or reason changed
// (ConditionEvents, action EventActionReconcile). ord is the order obj is
// (ManagementEventsOnly reads its cluster). Errors: the patch failed
// ("write <Kind> status: ..."; an apierrors Conflict under
// OptimisticLock); no event is recorded then.
func (w StatusWriter[T, S]) Write(ctx context.Context, c client.Client, ord Order, obj T, u StatusUpdate[S]) error {
	base, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("write %s status: %T is not a client.Object copy", w.Kind, obj)
	}
	st, conds, gen := w.Fields(obj)
	kept := *conds
	*st = u.Fields
	*conds = kept
	changed := controlplane.SetConditions(conds, u.Conditions, u.Now)
	*gen = obj.GetGeneration()
	if err := PatchStatus(ctx, c, obj, base, w.Kind, w.OptimisticLock); err != nil {
		return err
	}
	if w.Recorder == nil || (w.ManagementEventsOnly && ord.OnTargetCluster()) {
		return nil
	}
	for _, e := range ConditionEvents(changed) {
		w.Recorder.Eventf(obj, nil, e.Type, e.Reason, EventActionReconcile, "%s", e.Note)
	}
	return nil
}
