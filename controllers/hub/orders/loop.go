package orders

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/delivery/apply"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

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
	Gate conditions.Gate
	// conditions reads Obj's conditions (Loop's StatusWriter.Fields).
	conditions func() []metav1.Condition
}

// NotReadyFor is NotReadyFor of the order's conditions as this pass last
// wrote them, at now; 0 outside a Loop.
func (p *Pass[T]) NotReadyFor(now time.Time) time.Duration {
	if p.conditions == nil {
		return 0
	}
	return NotReadyFor(p.conditions(), p.Obj.GetCreationTimestamp().Time, now)
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
	Status() lifecycle.StatusUpdate[S]
	// Requeue is the delay before the next unprompted pass (pure).
	Requeue() time.Duration
}

// Loop is the reconcile skeleton every order kind shares: read the order and
// its plane, Teardown when deleting, else gate, finalizer, Act or Gated, and
// one deferred status write (lifecycle.StatusWriter.Finish).
// Errors: client, cluster, Teardown, Act or Gated failures.
type Loop[T client.Object, S any] struct {
	Kind      Kind[T, S]
	Finalizer string
	// Clusters gives the order's cluster client; Planes reads ControlPlanes.
	Clusters Clusters
	Planes   client.Reader
	Status   lifecycle.StatusWriter[T, S]
	// Children is the management cluster's cache indexed by IndexOwner.
	Children client.Reader
	Local    client.Client
	// Now stamps teardown conditions; nil is metav1.Now.
	Now func() metav1.Time
	// Overrides MAY replace the order defaults.
	Overrides Overrides[T]
}

// Overrides is where a kind differs from the order kinds' defaults; a nil
// field takes the default.
type Overrides[T client.Object] struct {
	// Gate replaces GateOf (docs/reference/keystoneservice.md, "Namespace consent").
	Gate func(p *Pass[T]) conditions.Gate
	// Finalize replaces NeedsFinalizer for an order without its finalizer.
	Finalize func(p *Pass[T]) bool
	// Children replaces the owner-index lister of a teardown.
	Children func(p *Pass[T]) ChildLister
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
	p := &Pass[T]{Order: OrderOf(l.Status.Kind, req), Client: oc, Obj: obj,
		conditions: func() []metav1.Condition { _, conds, _ := l.Status.Fields(obj); return *conds }}
	ref := l.Kind.PlaneRef(obj)
	if p.Plane, err = Plane(ctx, l.Planes, ref, obj.GetNamespace()); err != nil {
		return reconcile.Result{}, err
	}
	p.PlaneNamespace, _ = PlaneKey(ref, obj.GetNamespace())
	if !obj.GetDeletionTimestamp().IsZero() {
		return l.Teardown(ctx, p)
	}
	if p.Gate, err = l.gate(ctx, p, ref); err != nil {
		return reconcile.Result{}, err
	}
	if err := l.ensureFinalizer(ctx, p); err != nil {
		return reconcile.Result{}, err
	}
	a := l.Kind.Start(p)
	step := a.Gated
	if p.Gate.Passed() {
		step = a.Act
	}
	pr := lifecycle.AfterWrite(a.Requeue)
	stepCtx, refusals := apply.WithRefusals(ctx)
	if err := step(stepCtx); err != nil {
		pr = lifecycle.Failed(err)
	}
	u := a.Status()
	if e := refusals.First(); e != nil {
		// A kind may have swallowed it; the shared rung speaks for every kind.
		u.Conditions = RefuseChild(u.Conditions, e, p.Order, obj.GetGeneration())
		if pr.Err() == nil {
			pr = lifecycle.Failed(e)
		}
	}
	u.Quiet = p.Order.OnTargetCluster()
	kindWritten := u.Written
	u.Written = func() {
		if kindWritten != nil {
			kindWritten()
		}
		RecordReady(p.Order, p.conditions()) // docs/reference/metrics.md
	}
	return l.Status.Finish(ctx, oc, obj, &u, pr)
}

// TenantNamed is a Kind whose orders create a named Keystone object
// (KeystoneUser, KeystoneProject): Loop closes its gate with TenantNameGate.
type TenantNamed[T client.Object] interface {
	// TenantName is the effective domain and name obj creates on plane cp.
	// cp is nil only in a teardown whose plane is gone; the domain is then
	// the one controlplane.DomainOr answers without a plane.
	TenantName(obj T, cp *c5c3v1alpha1.ControlPlane) (domain, name string)
}

// gate is GateOf (or Overrides.Gate), then, when open and the kind is
// TenantNamed, TenantNameGate of the order's assignment, reading
// ClosedDomains when the assignment lists no domains. Errors: ClosedDomains.
func (l Loop[T, S]) gate(ctx context.Context, p *Pass[T], ref c5c3v1alpha1.ControlPlaneRefSpec) (conditions.Gate, error) {
	g := GateOf(p.Order, ref, p.Plane)
	if l.Overrides.Gate != nil {
		g = l.Overrides.Gate(p)
	}
	named, ok := l.Kind.(TenantNamed[T])
	if !g.Passed() || !ok || p.Plane == nil {
		return g, nil
	}
	a, _ := Assigned(p.Plane, p.Order.Cluster, p.Order.Namespace)
	var closed []string
	if a != nil && len(a.Domains) == 0 {
		var err error
		if closed, err = ClosedDomains(ctx, l.Planes, p.Plane); err != nil {
			return g, err
		}
	}
	domain, name := named.TenantName(p.Obj, p.Plane)
	return TenantNameGate(a, closed, p.Order.Kind, domain, name), nil
}

// Teardown runs the kind's Teardown for p (RunTeardown), keeping status fields.
func (l Loop[T, S]) Teardown(ctx context.Context, p *Pass[T]) (reconcile.Result, error) {
	list := OwnerLister(l.Children, ChildLabels(p.Order))
	if l.Overrides.Children != nil {
		list = l.Overrides.Children(p)
	}
	io := TeardownIO[T]{Local: l.Local, Recorder: l.Status.Recorder, List: list,
		Write: func(ctx context.Context, p *Pass[T], conds []metav1.Condition) error {
			now := metav1.Now()
			if l.Now != nil {
				now = l.Now()
			}
			st, _, _ := l.Status.Fields(p.Obj)
			return l.Status.Write(ctx, p.Client, p.Obj, lifecycle.StatusUpdate[S]{Fields: *st, Conditions: conds, Now: now,
				Quiet: p.Order.OnTargetCluster()})
		}}
	return RunTeardown(ctx, l.Kind.Teardown(p), io, p)
}

// ensureFinalizer adds l.Finalizer to p.Obj when NeedsFinalizer (or
// Overrides.Finalize) says so. Errors: the patch failed.
func (l Loop[T, S]) ensureFinalizer(ctx context.Context, p *Pass[T]) error {
	has := controllerutil.ContainsFinalizer(p.Obj, l.Finalizer)
	need := NeedsFinalizer(has, p.Plane, p.Order)
	if l.Overrides.Finalize != nil {
		need = !has && l.Overrides.Finalize(p)
	}
	if !need {
		return nil
	}
	return AddFinalizer(ctx, p.Client, p.Obj, l.Finalizer)
}

// Settled is the Actuator half of a kind with one condition and nothing to
// do while gated, whose next pass is After (its RequeueAfter) of whether that
// condition is True (KeystoneProject, KeystoneRoleAssignment).
type Settled[T client.Object, S any] struct {
	Pass  *Pass[T]
	Now   func() metav1.Time
	After func(ready, onTarget bool, notReadyFor time.Duration) time.Duration
	ready bool
}

// Gated does nothing.
func (*Settled[T, S]) Gated(context.Context) error { return nil }

// Settle is the status update of fields and conds, stamped Now; cond, the
// kind's condition, decides Requeue.
func (s *Settled[T, S]) Settle(cond metav1.Condition, conds []metav1.Condition, fields S) lifecycle.StatusUpdate[S] {
	s.ready = cond.Status == metav1.ConditionTrue
	return lifecycle.StatusUpdate[S]{Fields: fields, Conditions: conds, Now: s.Now()}
}

// Requeue is After, backing off from the time the order has not been Ready
// (Pass.NotReadyFor).
func (s *Settled[T, S]) Requeue() time.Duration {
	return s.After(s.ready, s.Pass.Order.OnTargetCluster(), s.Pass.NotReadyFor(s.Now().Time))
}
