package lifecycle

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// StaleRequeue is the requeue after a status Conflict under
// StatusWriter.OptimisticLock: the newer object's watch event normally
// comes first.
const StaleRequeue = time.Second

// Finish is every pass's deferred tail: it writes u (nil writes nothing),
// then ends with pr. A Conflict under OptimisticLock on a pass without
// error requeues after StaleRequeue; any other write error joins pr's.
// u.Written runs only after a successful write.
func (w StatusWriter[T, S]) Finish(ctx context.Context, c client.Client, obj T, u *StatusUpdate[S], pr Progress) (reconcile.Result, error) {
	if u == nil {
		return pr.Result()
	}
	err := w.Write(ctx, c, obj, *u)
	switch {
	case err == nil:
		if u.Written != nil {
			u.Written()
		}
		return pr.Result()
	case w.OptimisticLock && apierrors.IsConflict(err) && pr.Err() == nil:
		return reconcile.Result{RequeueAfter: StaleRequeue}, nil
	}
	return Failed(errors.Join(pr.Err(), err)).Result()
}
