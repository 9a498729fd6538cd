package identity

import (
	"maps"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// changeWorthReconciling is the pure decision behind specOrLifecycleChanged:
// an update of a resource is reconciled when its spec changed (generation),
// its deletion started, or its labels or annotations changed. An update of
// the status alone, such as the controller's own status patch after a
// failure, is not: the failed resource waits for its retry timer
// (retryInterval, or --error-backoff) instead of being retried at once.
func changeWorthReconciling(old, cur client.Object) bool {
	switch {
	case old == nil || cur == nil:
		return true
	case old.GetGeneration() != cur.GetGeneration():
		return true
	case old.GetDeletionTimestamp().IsZero() != cur.GetDeletionTimestamp().IsZero():
		return true
	case !maps.Equal(old.GetLabels(), cur.GetLabels()) || !maps.Equal(old.GetAnnotations(), cur.GetAnnotations()):
		return true
	}
	return false
}

// specOrLifecycleChanged filters the update events of the kinds with
// changeWorthReconciling; create, delete and generic events pass.
func specOrLifecycleChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		return changeWorthReconciling(e.ObjectOld, e.ObjectNew)
	}}
}
