package lifecycle

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Kind is the per-kind part of Loop for a hub kind that is not an order
// (T its pointer type, S its status type).
type Kind[T client.Object, S any] interface {
	New() T
	// Pass runs one pass on obj, which exists and is not being deleted. It
	// returns the status to write (nil: none) and how the pass ends. It MUST
	// NOT write obj's status itself.
	Pass(ctx context.Context, obj T) (*StatusUpdate[S], Progress)
}

// Loop is the reconcile skeleton of the hub kinds that are not orders:
// read, Pass, one deferred status write (Finish). An object being deleted
// is left to garbage collection: these kinds hold no finalizer.
type Loop[T client.Object, S any] struct {
	Client client.Client
	Kind   Kind[T, S]
	Status StatusWriter[T, S]
}

// Reconcile runs one pass for the object req names.
func (l Loop[T, S]) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	obj := l.Kind.New()
	if err := l.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !obj.GetDeletionTimestamp().IsZero() {
		return reconcile.Result{}, nil
	}
	u, pr := l.Kind.Pass(ctx, obj)
	return l.Status.Finish(ctx, l.Client, obj, u, pr)
}
