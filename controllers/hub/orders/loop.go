package orders

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// StaleRequeue is the requeue after a status Conflict under
// StatusWriter.OptimisticLock.
const StaleRequeue = time.Second

// Clusters gives the client of an order's cluster. Errors: wraps
// multicluster.ErrClusterNotFound when the cluster is not engaged.
type Clusters interface {
	Client(ctx context.Context, name multicluster.ClusterName) (client.Client, error)
}

// Pass is one reconcile pass of one order as Loop's prologue resolved it.
type Pass[T client.Object] struct {
	Order  Order
	Client client.Client
	// Obj is the order as read through Client; the pass updates it.
	Obj T
	// Plane is nil when the ControlPlane does not exist.
	Plane *c5c3v1alpha1.ControlPlane
	// PlaneNamespace holds the order's K-ORC children.
	PlaneNamespace string
	// Gate is unset in a teardown.
	Gate Gate
}

// Kind is the per-kind part of Loop for order type T with status type S, shaped
// like K-ORC's actuators
// (github.com/k-orc/openstack-resource-controller/v2/internal/controllers/generic).
type Kind[T client.Object, S any] interface {
	New() T
	PlaneRef(obj T) c5c3v1alpha1.ControlPlaneRefSpec
	// Teardown is the kind's deletion path.
	Teardown(p *Pass[T]) Teardown[T]
	// Start begins a normal pass once the gate and finalizer are decided.
	Start(p *Pass[T]) Actuator[S]
}

// Actuator is one normal pass: Loop calls Act or Gated, then Status, writes
// it, and calls Requeue when nothing failed.
type Actuator[S any] interface {
	// Act runs behind an open gate; its error is returned after the status write.
	Act(ctx context.Context) error
	// Gated runs when the gate refused or froze the order; it MUST NOT change
	// Keystone.
	Gated(ctx context.Context) error
	// Status decides conditions and status fields (pure).
	Status() StatusUpdate[S]
	// Requeue is the delay before the next unprompted pass (pure).
	Requeue() time.Duration
}

// Loop is the reconcile skeleton every order kind shares: read the order and
// its plane, Teardown when deleting, else gate, finalizer, Act or Gated, and
// one status write. A Conflict under OptimisticLock requeues after StaleRequeue.
// Errors: client, cluster, Teardown, Act or Gated failures.
type Loop[T client.Object, S any] struct {
	Kind      Kind[T, S]
	Finalizer string
	// Clusters gives the order's cluster client; Planes reads ControlPlanes.
	Clusters Clusters
	Planes   client.Reader
	Status   StatusWriter[T, S]
	// Children is the management cluster's cache indexed by IndexOwner.
	Children client.Reader
	Local    client.Client
	// Now stamps teardown conditions; nil is metav1.Now.
	Now func() metav1.Time
}

// Reconcile runs one pass for the order req names on its cluster.
func (l Loop[T, S]) Reconcile(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
	oc, err := l.Clusters.Client(ctx, req.ClusterName)
	if err != nil {
		return reconcile.Result{}, err
	}
	obj := l.Kind.New()
	if err := oc.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			ForgetMetrics(OrderOf(l.Status.Kind, req)) // the order is gone (docs/reference/metrics.md)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	p := &Pass[T]{Order: OrderOf(l.Status.Kind, req), Client: oc, Obj: obj}
	ref := l.Kind.PlaneRef(obj)
	if p.Plane, err = Plane(ctx, l.Planes, ref, obj.GetNamespace()); err != nil {
		return reconcile.Result{}, err
	}
	p.PlaneNamespace, _ = PlaneKey(ref, obj.GetNamespace())
	if !obj.GetDeletionTimestamp().IsZero() {
		return l.Teardown(ctx, p)
	}
	p.Gate = GateOf(p.Order, ref, p.Plane)
	if err := EnsureFinalizer(ctx, oc, obj, l.Finalizer, p.Plane, p.Order); err != nil {
		return reconcile.Result{}, err
	}
	a := l.Kind.Start(p)
	var errs []error
	step := a.Gated
	if p.Gate.Passed() {
		step = a.Act
	}
	if err := step(ctx); err != nil {
		errs = append(errs, err)
	}
	err = l.Status.Write(ctx, oc, p.Order, obj, a.Status())
	if l.Status.OptimisticLock && apierrors.IsConflict(err) && len(errs) == 0 {
		return reconcile.Result{RequeueAfter: StaleRequeue}, nil
	}
	if err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: a.Requeue()}, nil
}

// Teardown runs the kind's Teardown for p (RunTeardown), keeping status fields.
func (l Loop[T, S]) Teardown(ctx context.Context, p *Pass[T]) (reconcile.Result, error) {
	io := TeardownIO[T]{Local: l.Local, Recorder: l.Status.Recorder, List: OwnerLister(l.Children, ChildLabels(p.Order)),
		Write: func(ctx context.Context, p *Pass[T], conds []metav1.Condition) error {
			now := metav1.Now()
			if l.Now != nil {
				now = l.Now()
			}
			st, _, _ := l.Status.Fields(p.Obj)
			return l.Status.Write(ctx, p.Client, p.Order, p.Obj, StatusUpdate[S]{Fields: *st, Conditions: conds, Now: now})
		}}
	return RunTeardown(ctx, l.Kind.Teardown(p), io, p)
}
