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
	// Fields is the new status; conditions and observedGeneration are ignored.
	Fields S
	// Conditions are merged by controlplane.SetConditions.
	Conditions []metav1.Condition
	// Now is the lastTransitionTime of a changed condition.
	Now metav1.Time
}

// StatusWriter is the one status writer of an order kind (T the order's
// pointer type, S its status type), in normal passes and teardowns.
type StatusWriter[T client.Object, S any] struct {
	// Kind is one of the Kind constants.
	Kind string
	// Fields returns pointers to obj's status, conditions and observedGeneration.
	Fields   func(obj T) (status *S, conditions *[]metav1.Condition, observedGeneration *int64)
	Recorder recorder.EventRecorder
	// ManagementEventsOnly records no events for an order on a target cluster.
	ManagementEventsOnly bool
	// OptimisticLock guards the write by resourceVersion: a stale changing write
	// fails with a Conflict.
	OptimisticLock bool
}

// Write merges u into obj, patches the status subresource through c and
// records an event per condition whose status or reason changed. Errors: the
// patch failed (a Conflict under OptimisticLock); no event is recorded then.
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
	if obj.GetDeletionTimestamp().IsZero() {
		RecordReady(ord, *conds)
	}
	if w.Recorder == nil || (w.ManagementEventsOnly && ord.OnTargetCluster()) {
		return nil
	}
	for _, e := range ConditionEvents(changed) {
		w.Recorder.Eventf(obj, nil, e.Type, e.Reason, EventActionReconcile, "%s", e.Note)
	}
	return nil
}
