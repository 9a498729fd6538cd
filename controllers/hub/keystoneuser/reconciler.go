package keystoneuser

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/atrest"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// ControllerName names the controller, its field owner and event source.
const ControllerName = "orderhub-keystoneuser"

// Event reasons of notable transitions besides condition changes.
const (
	// EventPasswordRotation (Normal): a new password generation was created.
	EventPasswordRotation = "PasswordRotation"
	// EventPasswordDelivered (Normal): a generation reached the delivered Secret.
	EventPasswordDelivered = "PasswordDelivered"
	// EventRotationHeld (Normal): a due scheduled rotation is held.
	EventRotationHeld = "ScheduledRotationHeld"
	// EventCreateUser (Normal): the managed K-ORC User is created.
	EventCreateUser = "CreateUser"
)

// Reconciler reconciles KeystoneUser orders on every engaged cluster.
type Reconciler struct {
	orders.Base
	verifier controlplane.Verifier
	now      func() time.Time
	// verifyInterval bounds unchecked deliveries (VerifyDue); verified holds
	// the last accepted check per verifiedKey.
	verifyInterval time.Duration
	verified       sync.Map
	// refused holds the last Refusal per verifiedKey.
	refused sync.Map
	// rest is the at-rest record per verifiedKey (verifyAtRest), checker the
	// cheap check, loginPeriod the spacing of hashing logins at rest.
	rest        atrest.Memory
	checker     atrest.Checker
	loginPeriod time.Duration
	// budget bounds tenant rotations (orders.RotationBudget).
	budget *orders.RotationBudget
}

type (
	orderObj    = *c5c3v1alpha1.KeystoneUser
	orderStatus = c5c3v1alpha1.KeystoneUserStatus
)

// loop is the order loop of KeystoneUsers (orders.Loop).
func (r *Reconciler) loop() orders.Loop[orderObj, orderStatus] {
	return orders.NewLoop[orderObj, orderStatus](r.Base, kind{r}, orders.KindKeystoneUser, c5c3v1alpha1.FinalizerKeystoneUserTeardown,
		func(ku orderObj) (*orderStatus, *[]metav1.Condition, *int64) {
			return &ku.Status, &ku.Status.Conditions, &ku.Status.ObservedGeneration
		}, func() metav1.Time { return metav1.NewTime(r.now()) })
}

// Reconcile runs one pass for the KeystoneUser req names on req's cluster
// (orders.Loop).
func (r *Reconciler) Reconcile(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
	return r.loop().Reconcile(ctx, req)
}

// kind is the KeystoneUser part of the order loop (orders.Kind).
type kind struct{ *Reconciler }

func (kind) New() orderObj                                         { return &c5c3v1alpha1.KeystoneUser{} }
func (kind) PlaneRef(ku orderObj) c5c3v1alpha1.ControlPlaneRefSpec { return ku.Spec.ControlPlaneRef }

func (k kind) Teardown(*orders.Pass[orderObj]) orders.Teardown[orderObj] { return k.teardown() }

func (k kind) Start(p *orders.Pass[orderObj]) orders.Actuator[orderStatus] {
	return &actuator{gate: p.Gate, obs: Observation{Gate: p.Gate}, op: p, p: &pass{r: k.Reconciler, o: p.Order, oc: p.Client, ku: p.Obj,
		cp: p.Plane, st: p.Obj.Status.DeepCopy(), now: k.now(), lbl: orders.ChildLabels(p.Order)}}
}

// actuator is one normal pass of a KeystoneUser (orders.Actuator).
type actuator struct {
	p    *pass
	op   *orders.Pass[orderObj]
	gate conditions.Gate
	obs  Observation
	// heldSchedule is pass.heldSchedule after Act; ready is Ready=True.
	heldSchedule, ready bool
}

// Act projects the order (pass.run).
func (a *actuator) Act(ctx context.Context) error {
	err := a.p.run(ctx)
	a.obs, a.heldSchedule = a.p.obs, a.p.heldSchedule
	a.obs.Gate = a.gate
	return err
}

// Gated finishes, for a frozen order, only a rotation K-ORC already
// applied (pass.finishRotation).
func (a *actuator) Gated(ctx context.Context) error {
	if a.gate.Frozen() && a.p.cp != nil {
		return a.p.finishRotation(ctx)
	}
	return nil
}

// Status is UserCondition, DeliveryCondition and the pass's status fields.
func (a *actuator) Status() lifecycle.StatusUpdate[orderStatus] {
	ku, st := a.p.ku, a.p.st
	// A frozen or gated order keeps its status fields.
	st.NextPasswordRotation = NextRotation(st.LastPasswordRotation, Interval(ku))
	conds := Conditions(UserCondition(a.obs, ku.Generation), DeliveryCondition(a.obs, ku.Generation), ku.Generation)
	a.ready = conds[2].Status == metav1.ConditionTrue
	return lifecycle.StatusUpdate[orderStatus]{Fields: *st, Conditions: conds, Now: metav1.NewTime(a.p.r.now())}
}

// Requeue is Requeue, at most verifyInterval for a Ready order.
func (a *actuator) Requeue() time.Duration {
	d := Requeue(a.ready && !a.heldSchedule, a.p.st.NextPasswordRotation, a.p.now, a.p.o.OnTargetCluster(), a.op.NotReadyFor(a.p.now))
	if a.ready {
		d = min(d, max(a.p.r.verifyInterval, time.Second))
	}
	if w := a.p.budgetWait; w > 0 {
		d = min(d, max(w, time.Second)) // the withheld rotation starts when the budget allows
	}
	return d
}

// event records an event on an order of the management cluster only.
func (r *Reconciler) event(o orders.Order, ku *c5c3v1alpha1.KeystoneUser, typ, reason, note string, args ...any) {
	orders.Event(r.Recorder, o, ku, typ, reason, "Reconcile", note, args...)
}

// TenantName is the effective domain and user name (orders.TenantNamed).
func (kind) TenantName(ku orderObj, cp *c5c3v1alpha1.ControlPlane) (domain, name string) {
	return EffectiveDomain(ku, cp), EffectiveUserName(ku)
}
