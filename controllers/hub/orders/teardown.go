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
	// TeardownNone: the finalizer is not installed; nothing to do.
	TeardownNone TeardownStep = "None"
	// TeardownHold: a credential order still needs the order (Held); the
	// deletion waits (ReferencedByApplicationCredentials) and nothing is
	// deleted or revoked.
	TeardownHold TeardownStep = "Hold"
	// TeardownWait: deletes (or a revoke) were issued and failed, or
	// children are still listed.
	TeardownWait TeardownStep = "Wait"
	// TeardownRelease: remove the finalizer.
	TeardownRelease TeardownStep = "Release"
)

// DecideTeardown decides a deletion pass after its deletes were issued
// (docs/reference/keystoneproject.md and keystoneroleassignment.md
// "Deletion Semantics"): without the finalizer nothing; held while held
// holds; with the plane gone release after one pass (K-ORC has nothing left
// to reach Keystone with); else wait while a child is listed (left counts
// the children listed before this pass's deletes) or a step failed.
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

// EventTeardownFailOpen is the Warning a teardown records when it releases
// the finalizer with the ControlPlane gone while children are still listed.
const EventTeardownFailOpen = "TeardownFailOpen"

// Hold is a teardown's hold verdict: while Holding, the pass deletes
// nothing, writes Conditions and looks again after Requeue (CapTarget).
type Hold struct {
	Holding    bool
	Conditions []metav1.Condition
	Requeue    time.Duration
}

// Phase is one group of child sets swept together (Sweep). While the
// ControlPlane exists, a phase is swept only once every earlier phase lists
// nothing.
type Phase[T client.Object] struct {
	Sets []ChildSet
	// After runs once the phase's deletes were issued, for a delete outside
	// the management cluster's children (the Secret delivered on the
	// order's cluster). MAY be nil; its error is joined with the sweep's.
	After func(ctx context.Context, p *Pass[T]) error
}

// Teardown is a kind's deletion path as data (docs/reference/<kind>.md,
// "Deletion Semantics"); RunTeardown runs it for an order being deleted.
// Every function field MAY be nil.
type Teardown[T client.Object] struct {
	// Finalizer is the kind's teardown finalizer: without it a pass does
	// nothing.
	Finalizer string
	// Forget drops what the kind remembers of the order in memory.
	Forget func(p *Pass[T])
	// Hold reads whether something still needs the order. It MUST NOT
	// write.
	Hold func(ctx context.Context, p *Pass[T]) (Hold, error)
	// Before runs while the ControlPlane exists, before any delete (a
	// revoke in Keystone). On an error the pass writes the returned
	// conditions and ends with the error, deleting nothing.
	Before func(ctx context.Context, p *Pass[T]) ([]metav1.Condition, error)
	// Phases are the order's children in the order they are deleted.
	Phases []Phase[T]
	// Waiting returns the conditions written while children are listed or
	// a delete failed (nil: the status is left alone).
	Waiting func(p *Pass[T], left int, err error) []metav1.Condition
	// WaitRequeue is how soon a waiting pass looks again without an event
	// (0: the children's events and errors bring it back).
	WaitRequeue time.Duration
	// Release frees what the order holds beside its children (name claims)
	// once they are gone, or the ControlPlane is. It MUST be idempotent.
	Release func(ctx context.Context, p *Pass[T]) error
}

// TeardownIO is what RunTeardown reads and writes through.
type TeardownIO[T client.Object] struct {
	// List lists the order's children (ListChildren on the owner index).
	List ChildLister
	// Local deletes children on the management cluster.
	Local client.Client
	// Write writes conditions into the order's status through its kind's
	// StatusWriter, with p.Order (so events follow ManagementEventsOnly).
	Write func(ctx context.Context, p *Pass[T], conds []metav1.Condition) error
	// Recorder receives TeardownFailOpen (Event: none on target clusters).
	Recorder recorder.EventRecorder
}

// RunTeardown runs one deletion pass of p.Obj by td: Hold, then Before
// (with the ControlPlane), then the phases (Sweep), then DecideTeardown:
// Wait writes td.Waiting and requeues; Release runs td.Release, removes the
// finalizer and, with the ControlPlane gone and children listed, records
// EventTeardownFailOpen. Errors: a failed hold read, Before, a status
// write, a delete while the ControlPlane exists, Release or the finalizer
// patch (NotFound is success: an earlier pass released it).
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
		// The holder's events bring the order back (HoldChanged).
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
		// The children's deletion events bring the order back.
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

// sweepPhases sweeps phases in order (all of them with the ControlPlane
// gone) and returns how many children were listed and the joined errors.
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

// release runs td.Release, removes the finalizer and records
// EventTeardownFailOpen for what a pass without the ControlPlane left.
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
	if p.Plane == nil && (left > 0 || sweepErr != nil) {
		note := fmt.Sprintf("ControlPlane is gone: released with %d children still listed", left)
		if sweepErr != nil {
			note += "; deletes failed: " + sweepErr.Error()
		}
		Event(io.Recorder, p.Order, p.Obj, corev1.EventTypeWarning, EventTeardownFailOpen, "Delete", "%s", note)
	}
	return nil
}

// write writes conds through io.Write; without Write or conditions it
// writes nothing.
func (io TeardownIO[T]) write(ctx context.Context, p *Pass[T], conds []metav1.Condition) error {
	if io.Write == nil || len(conds) == 0 {
		return nil
	}
	return io.Write(ctx, p, conds)
}
