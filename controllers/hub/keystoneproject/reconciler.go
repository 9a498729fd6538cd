package keystoneproject

import (
	"context"
	"errors"

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

// ControllerName names the controller, its field owner and its event source.
const ControllerName = "orderhub-keystoneproject"

// Reconciler reconciles KeystoneProject orders on every engaged cluster.
// writeStatus is its only status writer.
type Reconciler struct {
	hub *clusters.Hub
	// local is the management cluster's client: planes and children.
	local    client.Client
	recorder recorder.EventRecorder
	now      func() metav1.Time
	// claims is the client of the name claims (orders.Acquire/Release):
	// reads bypass the cache.
	claims client.Client
}

// Reconcile runs one pass for the KeystoneProject req names on its cluster.
// Errors: a deregistered cluster (wrapping multicluster.ErrClusterNotFound,
// which drops the request), or a read/write failure (retried).
func (r *Reconciler) Reconcile(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
	oc, err := r.hub.Client(ctx, req.ClusterName)
	if err != nil {
		return reconcile.Result{}, err
	}
	var kp c5c3v1alpha1.KeystoneProject
	if err := oc.Get(ctx, req.NamespacedName, &kp); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	ord := orders.OrderOf(orders.KindKeystoneProject, req)
	cp, err := orders.Plane(ctx, r.local, kp.Spec.ControlPlaneRef, kp.Namespace)
	if err != nil {
		return reconcile.Result{}, err
	}
	if !kp.DeletionTimestamp.IsZero() {
		return r.teardown(ctx, oc, &kp, cp, ord)
	}
	gate := orders.GateOf(ord, kp.Spec.ControlPlaneRef, cp)
	if err := orders.EnsureFinalizer(ctx, oc, &kp, c5c3v1alpha1.FinalizerKeystoneProjectTeardown, cp, ord); err != nil {
		return reconcile.Result{}, err
	}
	o := Observation{Gate: gate}
	domainID := ""
	if gate.Passed() {
		o, domainID = r.project(ctx, &kp, cp, ord)
		o.Gate = gate
	}
	cond := ProjectCondition(o, kp.Generation)
	st := StatusOf(kp.Status, o, EffectiveProjectName(&kp), domainID)
	var errs []error
	if o.Error != nil {
		errs = append(errs, o.Error)
	}
	if err := r.writeStatus(ctx, oc, &kp, Conditions(cond, kp.Generation), st); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: RequeueAfter(cond.Status == metav1.ConditionTrue, ord.OnTargetCluster())}, nil
}

// writeStatus sets the conditions, observedGeneration and the status fields
// on the order's cluster and emits an event per condition whose status or
// reason changed (orders.ConditionEvents).
func (r *Reconciler) writeStatus(ctx context.Context, oc client.Client, kp *c5c3v1alpha1.KeystoneProject,
	conds []metav1.Condition, st c5c3v1alpha1.KeystoneProjectStatus) error {
	base := kp.DeepCopy()
	st.Conditions = kp.Status.Conditions
	changed := controlplane.SetConditions(&st.Conditions, conds, r.now())
	st.ObservedGeneration = kp.Generation
	kp.Status = st
	if err := orders.PatchStatus(ctx, oc, kp, base, orders.KindKeystoneProject, false); err != nil {
		return err
	}
	for _, e := range orders.ConditionEvents(changed) {
		r.recorder.Eventf(kp, nil, e.Type, e.Reason, orders.EventActionReconcile, "%s", e.Note)
	}
	return nil
}
