package keystoneroleassignment

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
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/clusters"
)

// ControllerName names the controller, its field owner and its event source.
const ControllerName = "orderhub-keystoneroleassignment"

// Reconciler reconciles KeystoneRoleAssignment orders on every engaged
// cluster. writeStatus is its only status writer.
type Reconciler struct {
	hub *clusters.Hub
	// local is the management cluster's client: planes, the Role import and
	// the admin credentials.
	local    client.Client
	recorder recorder.EventRecorder
	now      func() metav1.Time
	granter  grants.Granter
}

// Reconcile runs one pass for the KeystoneRoleAssignment req names on its
// cluster. Errors: a deregistered cluster (wrapping
// multicluster.ErrClusterNotFound, which drops the request), or a
// read/write failure (retried).
func (r *Reconciler) Reconcile(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
	oc, err := r.hub.Client(ctx, req.ClusterName)
	if err != nil {
		return reconcile.Result{}, err
	}
	var ra c5c3v1alpha1.KeystoneRoleAssignment
	if err := oc.Get(ctx, req.NamespacedName, &ra); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	ord := orders.OrderOf(orders.KindKeystoneRoleAssignment, req)
	cp, err := orders.Plane(ctx, r.local, ra.Spec.ControlPlaneRef, ra.Namespace)
	if err != nil {
		return reconcile.Result{}, err
	}
	if !ra.DeletionTimestamp.IsZero() {
		return r.teardown(ctx, oc, &ra, cp, ord)
	}
	gate := orders.GateOf(ord, ra.Spec.ControlPlaneRef, cp)
	if err := orders.EnsureFinalizer(ctx, oc, &ra, c5c3v1alpha1.FinalizerKeystoneRoleAssignmentTeardown, cp, ord); err != nil {
		return reconcile.Result{}, err
	}
	o := Observation{Gate: gate, Role: string(ra.Spec.Role), Namespace: ra.Namespace}
	var userID, projectID string
	if gate.Passed() {
		a, _ := orders.Assigned(cp, ord.Cluster, ord.Namespace)
		o.Allowed = orders.RoleAllowed(a, string(ra.Spec.Role))
		o.Plane, o.External = cp.Namespace+"/"+cp.Name, controlplane.IsExternal(cp)
		if o.Allowed {
			userID, projectID = r.assign(ctx, oc, &ra, cp, ord, &o)
		}
	}
	cond := AssignmentCondition(o, ra.Generation)
	st := StatusOf(ra.Status, o, userID, projectID)
	var errs []error
	if o.Error != nil {
		errs = append(errs, o.Error)
	}
	if err := r.writeStatus(ctx, oc, &ra, Conditions(cond, ra.Generation), st); err != nil {
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
func (r *Reconciler) writeStatus(ctx context.Context, oc client.Client, ra *c5c3v1alpha1.KeystoneRoleAssignment,
	conds []metav1.Condition, st c5c3v1alpha1.KeystoneRoleAssignmentStatus) error {
	base := ra.DeepCopy()
	st.Conditions = ra.Status.Conditions
	changed := controlplane.SetConditions(&st.Conditions, conds, r.now())
	st.ObservedGeneration = ra.Generation
	ra.Status = st
	if err := orders.PatchStatus(ctx, oc, ra, base, orders.KindKeystoneRoleAssignment, false); err != nil {
		return err
	}
	for _, e := range orders.ConditionEvents(changed) {
		r.recorder.Eventf(ra, nil, e.Type, e.Reason, orders.EventActionReconcile, "%s", e.Note)
	}
	return nil
}
