package orders

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// TeardownStep is what an order's finalizer does in one deletion pass.
type TeardownStep string

const (
	TeardownNone TeardownStep = "None"
	// TeardownHold: a credential order still needs the order; nothing is deleted.
	TeardownHold TeardownStep = "Hold"
	// TeardownWait: a delete failed or children are still listed.
	TeardownWait    TeardownStep = "Wait"
	TeardownRelease TeardownStep = "Release"
)

// DecideTeardown decides a deletion pass after its deletes were issued; left
// counts children listed before them (docs/reference/keystoneproject.md,
// "Deletion Semantics").
func DecideTeardown(hasFinalizer bool, held Held, planeExists bool, left int, failed bool) TeardownStep {
	switch {
	case !hasFinalizer:
		return TeardownNone
	case held.Holding():
		return TeardownHold
	case !planeExists:
		return TeardownRelease
	case left > 0 || failed:
		return TeardownWait
	}
	return TeardownRelease
}

// EventTeardownFailOpen is the Warning for releasing the finalizer with the
// ControlPlane gone and children still listed.
const EventTeardownFailOpen = "TeardownFailOpen"

// Hold is a teardown's hold verdict: while Holding nothing is deleted.
type Hold struct {
	Holding    bool
	Conditions []metav1.Condition
	Requeue    time.Duration
}

// Phase is a group of child sets swept together, each only once earlier phases
// list nothing while the ControlPlane exists.
type Phase[T client.Object] struct {
	Sets []ChildSet
	// After deletes outside the management cluster's children. MAY be nil.
	After func(ctx context.Context, p *Pass[T]) error
}

// Teardown is a kind's deletion path as data (docs/reference/<kind>.md,
// "Deletion Semantics"). Every function field MAY be nil.
type Teardown[T client.Object] struct {
	Finalizer string
	Forget    func(p *Pass[T])
	// Hold reads whether something still needs the order. It MUST NOT write.
	Hold func(ctx context.Context, p *Pass[T]) (Hold, error)
	// Before runs before any delete while the ControlPlane exists; on error
	// nothing is deleted.
	Before func(ctx context.Context, p *Pass[T]) ([]metav1.Condition, error)
	Phases []Phase[T]
	// Waiting returns the conditions of a waiting pass (nil: leave status).
	Waiting func(p *Pass[T], left int, err error) []metav1.Condition
	// WaitRequeue is the requeue of a waiting pass (0: events only).
	WaitRequeue time.Duration
	// Release frees what the order holds beside children. It MUST be idempotent.
	Release func(ctx context.Context, p *Pass[T]) error
}

type TeardownIO[T client.Object] struct {
	List  ChildLister
	Local client.Client
	// Write writes conditions through the kind's StatusWriter.
	Write    func(ctx context.Context, p *Pass[T], conds []metav1.Condition) error
	Recorder recorder.EventRecorder
}

// RunTeardown runs one deletion pass of p.Obj by td: Hold, Before, Sweep,
// DecideTeardown. Errors: hold read, Before, status write, delete, Release or
// finalizer patch; NotFound on the patch is success.
func RunTeardown[T client.Object](ctx context.Context, td Teardown[T], io TeardownIO[T], p *Pass[T]) (reconcile.Result, error) {
	has := controllerutil.ContainsFinalizer(p.Obj, td.Finalizer)
	if td.Forget != nil {
		td.Forget(p)
	}
	if !has {
		return reconcile.Result{}, nil
	}
	var hold Hold
	if td.Hold != nil {
		var err error
		if hold, err = td.Hold(ctx, p); err != nil {
			return reconcile.Result{}, err
		}
	}
	if hold.Holding {
		err := io.write(ctx, p, hold.Conditions)
		return reconcile.Result{RequeueAfter: CapTarget(hold.Requeue, p.Order.OnTargetCluster())}, err
	}
	if td.Before != nil && p.Plane != nil {
		if conds, err := td.Before(ctx, p); err != nil {
			return reconcile.Result{}, errors.Join(err, io.write(ctx, p, conds))
		}
	}
	left, sweepErr := sweepPhases(ctx, td.Phases, io, p)
	switch DecideTeardown(has, nil, p.Plane != nil, left, sweepErr != nil) {
	case TeardownWait:
		var werr error
		if td.Waiting != nil {
			werr = io.write(ctx, p, td.Waiting(p, left, sweepErr))
		}
		return reconcile.Result{RequeueAfter: td.WaitRequeue}, errors.Join(sweepErr, werr)
	case TeardownRelease:
		return reconcile.Result{}, release(ctx, td, io, p, left, sweepErr)
	}
	return reconcile.Result{}, nil
}

// sweepPhases returns how many children were listed and the joined errors.
func sweepPhases[T client.Object](ctx context.Context, phases []Phase[T], io TeardownIO[T], p *Pass[T]) (int, error) {
	left := 0
	var errs []error
	for _, ph := range phases {
		n, err := Sweep(ctx, io.List, io.Local, p.PlaneNamespace, p.Obj.GetNamespace(), ph.Sets...)
		if ph.After != nil {
			err = errors.Join(err, ph.After(ctx, p))
		}
		left += n
		errs = append(errs, err)
		if p.Plane != nil && (n > 0 || err != nil) {
			break // the next phase waits for this one
		}
	}
	return left, errors.Join(errs...)
}

func release[T client.Object](ctx context.Context, td Teardown[T], io TeardownIO[T], p *Pass[T], left int, sweepErr error) error {
	if td.Release != nil {
		if err := td.Release(ctx, p); err != nil {
			return err
		}
	}
	base, ok := p.Obj.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("release the finalizer: %T is not a client.Object copy", p.Obj)
	}
	controllerutil.RemoveFinalizer(p.Obj, td.Finalizer)
	if err := client.IgnoreNotFound(p.Client.Patch(ctx, p.Obj, client.MergeFrom(base))); err != nil {
		return fmt.Errorf("release the finalizer: %w", err)
	}
	ForgetMetrics(p.Order)
	if p.Plane == nil && (left > 0 || sweepErr != nil) {
		note := fmt.Sprintf("ControlPlane is gone: released with %d children still listed", left)
		if sweepErr != nil {
			note += "; deletes failed: " + sweepErr.Error()
		}
		Event(io.Recorder, p.Order, p.Obj, corev1.EventTypeWarning, EventTeardownFailOpen, "Delete", "%s", note)
	}
	return nil
}

func (io TeardownIO[T]) write(ctx context.Context, p *Pass[T], conds []metav1.Condition) error {
	if io.Write == nil || len(conds) == 0 {
		return nil
	}
	return io.Write(ctx, p, conds)
}
