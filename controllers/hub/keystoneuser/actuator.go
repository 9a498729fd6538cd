package keystoneuser

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

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
