package keystoneuser

import (
	"context"
	"errors"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/clusters"
)

// ControllerName names the controller, the field owner of the K-ORC
// children it applies and its event source.
const ControllerName = "orderhub-keystoneuser"

// Event reasons of notable transitions besides condition changes.
const (
	// EventPasswordRotation (Normal): a new password generation was created
	// (spec.passwordGeneration raised, or the schedule fell due).
	EventPasswordRotation = "PasswordRotation"
	// EventPasswordDelivered (Normal): a password generation reached the
	// delivered Secret.
	EventPasswordDelivered = "PasswordDelivered"
	// EventRotationHeld (Normal): a due scheduled rotation waits for a
	// credential order's deletion.
	EventRotationHeld = "ScheduledRotationHeld"
	// EventCreateUser (Normal): the probe found no user; the managed K-ORC
	// User is created.
	EventCreateUser = "CreateUser"
)

// Reconciler reconciles KeystoneUser orders on every engaged cluster.
type Reconciler struct {
	hub *clusters.Hub
	// local is the management cluster's client: children, planes.
	local    client.Client
	recorder recorder.EventRecorder
	verifier controlplane.Verifier
	now      func() time.Time
	// claims is the client of the name claims (orders.Acquire/Release):
	// reads bypass the cache.
	claims client.Client
	// verifyInterval bounds how long an unchanged delivery goes without a
	// Keystone check (VerifyDue); verified records the last accepted check
	// per order (verifiedKey -> time.Time).
	verifyInterval time.Duration
	verified       sync.Map
}

// Reconcile runs one pass for the KeystoneUser req names on req's cluster.
func (r *Reconciler) Reconcile(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
	o := orders.OrderOf(orders.KindKeystoneUser, req)
	oc, err := r.hub.Client(ctx, req.ClusterName)
	if err != nil {
		return reconcile.Result{}, err // a deregistered cluster: the builder drops the request
	}
	var ku c5c3v1alpha1.KeystoneUser
	if err := oc.Get(ctx, req.NamespacedName, &ku); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	cp, err := orders.Plane(ctx, r.local, ku.Spec.ControlPlaneRef, ku.Namespace)
	if err != nil {
		return reconcile.Result{}, err
	}
	if !ku.DeletionTimestamp.IsZero() {
		return r.teardown(ctx, o, oc, &ku, cp)
	}
	gate := orders.GateOf(o, ku.Spec.ControlPlaneRef, cp)
	if err := orders.EnsureFinalizer(ctx, oc, &ku, c5c3v1alpha1.FinalizerKeystoneUserTeardown, cp, o); err != nil {
		return reconcile.Result{}, err
	}
	now := r.now()
	st := ku.Status.DeepCopy()
	obs := Observation{Gate: gate}
	heldSchedule := false
	var errs []error
	if gate.Passed() {
		p := &pass{r: r, o: o, oc: oc, ku: &ku, cp: cp, st: st, now: now, lbl: orders.ChildLabels(o)}
		if err := p.run(ctx); err != nil {
			errs = append(errs, err)
		}
		obs = p.obs
		obs.Gate = gate
		heldSchedule = p.heldSchedule
	} else if gate.Frozen() && cp != nil {
		// Frozen: only a rotation K-ORC already applied is finished.
		p := &pass{r: r, o: o, oc: oc, ku: &ku, cp: cp, st: st, now: now, lbl: orders.ChildLabels(o)}
		if err := p.finishRotation(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	// A frozen or gated order keeps its status fields; the schedule only
	// moves with a delivery (docs/reference/keystoneapplicationcredential.md,
	// "Consent": the schedule pauses).
	st.NextPasswordRotation = NextRotation(st.LastPasswordRotation, Interval(&ku))
	conds := Conditions(UserCondition(obs, ku.Generation), DeliveryCondition(obs, ku.Generation), ku.Generation)
	if err := r.writeStatus(ctx, o, oc, &ku, st, conds); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return reconcile.Result{}, err
	}
	ready := conds[2].Status == metav1.ConditionTrue
	d := Requeue(ready && !heldSchedule, st.NextPasswordRotation, now, o.OnTargetCluster())
	if ready {
		d = min(d, max(r.verifyInterval, time.Second)) // the next Keystone check of the delivered password (VerifyDue)
	}
	return reconcile.Result{RequeueAfter: d}, nil
}

// writeStatus patches the order's status (conditions, observedGeneration
// and st's fields) through oc and emits an event per condition whose status
// or reason changed.
func (r *Reconciler) writeStatus(ctx context.Context, o orders.Order, oc client.Client, ku *c5c3v1alpha1.KeystoneUser,
	st *c5c3v1alpha1.KeystoneUserStatus, conds []metav1.Condition) error {
	base := ku.DeepCopy()
	conditions := st.Conditions
	changed := controlplane.SetConditions(&conditions, conds, metav1.NewTime(r.now()))
	ku.Status = *st
	ku.Status.Conditions = conditions
	ku.Status.ObservedGeneration = ku.Generation
	if err := orders.PatchStatus(ctx, oc, ku, base, orders.KindKeystoneUser, false); err != nil {
		return err
	}
	for _, e := range orders.ConditionEvents(changed) {
		r.event(o, ku, e.Type, e.Reason, "%s", e.Note)
	}
	return nil
}

// event records an event on an order of the management cluster. The
// recorder writes to the management cluster only, so an order on a target
// cluster gets none; its conditions carry the same information.
func (r *Reconciler) event(o orders.Order, ku *c5c3v1alpha1.KeystoneUser, typ, reason, note string, args ...any) {
	if o.OnTargetCluster() || r.recorder == nil {
		return
	}
	r.recorder.Eventf(ku, nil, typ, reason, "Reconcile", note, args...)
}
