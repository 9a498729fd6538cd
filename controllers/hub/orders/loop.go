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

// StaleRequeue is how soon a pass whose status write met a Conflict under
// StatusWriter.OptimisticLock (it read a stale order and changed its
// status) runs again.
const StaleRequeue = time.Second

// Clusters gives the client of the cluster an order lives on
// (clusters.Hub.Client). Errors: the cluster is not engaged (wrapping
// multicluster.ErrClusterNotFound, which makes the builder drop the
// request).
type Clusters interface {
	Client(ctx context.Context, name multicluster.ClusterName) (client.Client, error)
}

// Pass is one reconcile pass of one order as Loop's prologue resolved it.
type Pass[T client.Object] struct {
	// Order is the order (OrderOf the request).
	Order Order
	// Client is the client of the order's cluster.
	Client client.Client
	// Obj is the order as read through Client; the pass updates it.
	Obj T
	// Plane is the ControlPlane spec.controlPlaneRef resolves to, nil when
	// it does not exist (Plane).
	Plane *c5c3v1alpha1.ControlPlane
	// PlaneNamespace is the ControlPlane's namespace (PlaneKey), where the
	// order's K-ORC children live, whether or not the plane exists.
	PlaneNamespace string
	// Gate is the shared gate (GateOf); unset in a teardown.
	Gate Gate
}

// Kind is the per-kind part of Loop for the order type T (a pointer to the
// API struct) with status type S, in the shape of K-ORC's actuators
// (github.com/k-orc/openstack-resource-controller/v2/internal/controllers/generic:
// one generic reconciler, a small interface per kind).
type Kind[T client.Object, S any] interface {
	// New returns an empty order to read into.
	New() T
	// PlaneRef is obj's spec.controlPlaneRef.
	PlaneRef(obj T) c5c3v1alpha1.ControlPlaneRefSpec
	// Teardown is the kind's deletion path, which Loop runs (RunTeardown)
	// for an order being deleted.
	Teardown(p *Pass[T]) Teardown[T]
	// Start begins the normal pass of p (the gate is decided, the
	// finalizer installed where NeedsFinalizer says so) and returns its
	// Actuator.
	Start(p *Pass[T]) Actuator[S]
}

// Actuator is one normal pass of one order. Loop calls Act (open gate) or
// Gated (refused or frozen), then Status, writes the update, and, when
// nothing failed, calls Requeue.
type Actuator[S any] interface {
	// Act runs behind an open gate: it observes the order's children, lets
	// the kind's decide functions choose the step and carries it out. The
	// error (a Kubernetes-level failure, which the kind also records in
	// what Status reports) is returned after the status is written.
	Act(ctx context.Context) error
	// Gated runs when the gate refused or froze the order: it changes
	// nothing in Keystone (most kinds do nothing here). Its error is
	// handled like Act's.
	Gated(ctx context.Context) error
	// Status decides the pass's conditions and status fields from what the
	// pass observed (pure).
	Status() StatusUpdate[S]
	// Requeue is the delay before the next unprompted pass once the status
	// was written and nothing failed (pure).
	Requeue() time.Duration
}

// Loop is the reconcile skeleton every order kind shares. Per pass:
//
//  1. the order's cluster client (Clusters), the order (NotFound ends the
//     pass), its Order (OrderOf) and its ControlPlane (Plane, from
//     Planes);
//  2. an order being deleted: the kind's Teardown (Loop.Teardown), whose
//     result ends the pass;
//  3. the shared gate (GateOf) and the teardown finalizer
//     (EnsureFinalizer);
//  4. Kind.Start, then Actuator.Act behind an open gate or Actuator.Gated;
//  5. Actuator.Status, written by Status (the kind's one status writer);
//  6. the errors of 4 and 5 joined; with none, Actuator.Requeue. Under
//     Status.OptimisticLock a Conflict on the write with no other error
//     is a stale read: no error, RequeueAfter StaleRequeue.
//
// Errors: a failed client, read or write (retried by the controller), the
// cluster not engaged (Clusters), or what Teardown, Act or Gated returned.
type Loop[T client.Object, S any] struct {
	Kind Kind[T, S]
	// Finalizer is the kind's teardown finalizer.
	Finalizer string
	// Clusters gives the order's cluster client; Planes reads the
	// ControlPlanes (the management cluster).
	Clusters Clusters
	Planes   client.Reader
	// Status writes the status; Status.Kind names the order's kind.
	Status StatusWriter[T, S]
	// Children is the management cluster's cache holding IndexOwner for
	// the kind's children (IndexChildren); Local deletes them.
	Children client.Reader
	Local    client.Client
	// Now stamps the teardown's conditions; nil is metav1.Now.
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

// Teardown runs the kind's Teardown for p (RunTeardown): children listed
// from l.Children by p.Order's ChildLabels, deleted through l.Local, status
// conditions written through l.Status with p.Order, the status fields kept.
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
