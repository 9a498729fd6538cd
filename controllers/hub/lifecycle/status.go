package lifecycle

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/c5c3/orderhub/controllers/hub/conditions"
)

// EventActionReconcile is the action of every condition event.
const EventActionReconcile = "Reconcile"

// StatusUpdate is what one pass writes to an object's status.
type StatusUpdate[S any] struct {
	// Fields is the new status; conditions and observedGeneration are ignored.
	Fields S
	// Conditions are merged by conditions.Set.
	Conditions []metav1.Condition
	// Now is the lastTransitionTime of a changed condition.
	Now metav1.Time
	// Quiet records no events: an order on a target cluster
	// (docs/hub.md, "Target clusters").
	Quiet bool
	// Written MAY be nil; Finish calls it after a successful write.
	Written func()
}

// StatusWriter is the one status writer of a hub kind (T the object's pointer
// type, S its status type), in normal passes and teardowns.
type StatusWriter[T client.Object, S any] struct {
	// Kind names the kind in errors.
	Kind string
	// Fields returns pointers to obj's status, conditions and observedGeneration.
	Fields   func(obj T) (status *S, conditions *[]metav1.Condition, observedGeneration *int64)
	Recorder recorder.EventRecorder
	// OptimisticLock guards the write by resourceVersion: a stale changing write
	// fails with a Conflict.
	OptimisticLock bool
}

// Write merges u into obj, patches the status subresource through c (nothing
// is sent when nothing changed), logs a line per condition whose status or
// reason changed and records the events conditions.Events decides
// (docs/hub.md, "Condition events"). Errors: the patch failed (a Conflict
// under OptimisticLock); no event is recorded then.
func (w StatusWriter[T, S]) Write(ctx context.Context, c client.Client, obj T, u StatusUpdate[S]) error {
	base, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("write %s status: %T is not a client.Object copy", w.Kind, obj)
	}
	st, conds, gen := w.Fields(obj)
	kept := *conds
	*st = u.Fields
	*conds = kept
	before := slices.Clone(kept)
	changed := conditions.Set(conds, u.Conditions, u.Now)
	*gen = obj.GetGeneration()
	if err := PatchStatus(ctx, c, obj, base, w.Kind, w.OptimisticLock); err != nil {
		return err
	}
	for _, c := range changed {
		log.FromContext(ctx).Info("condition changed", "type", c.Type, "status", c.Status, "reason", c.Reason)
	}
	if w.Recorder == nil || u.Quiet {
		return nil
	}
	for _, e := range conditions.Events(before, u.Conditions, changed) {
		w.Recorder.Eventf(obj, nil, e.Type, e.Reason, EventActionReconcile, "%s", e.Note)
	}
	return nil
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
