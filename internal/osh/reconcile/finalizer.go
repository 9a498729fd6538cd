package reconcile

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// SetFinalizer adds (want) or removes finalizer on obj, writing only on a
// change, with a merge patch carrying the resourceVersion (a concurrent
// change fails and is retried). A resource gone meanwhile is no error.
func SetFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string, want bool) error {
	if controllerutil.ContainsFinalizer(obj, finalizer) == want {
		return nil
	}
	base := obj.DeepCopyObject().(client.Object)
	if want {
		controllerutil.AddFinalizer(obj, finalizer)
	} else {
		controllerutil.RemoveFinalizer(obj, finalizer)
	}
	return client.IgnoreNotFound(c.Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})))
}
