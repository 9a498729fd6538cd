package keystoneroleassignment

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// ControllerName names the controller, its field owner and its event source.
const ControllerName = "orderhub-keystoneroleassignment"

// Reconciler reconciles KeystoneRoleAssignment orders on every engaged
// cluster. Its loop's StatusWriter is its only status writer.
type Reconciler struct {
	orders.Base
	now     func() metav1.Time
	granter grants.Granter
}

type (
	orderObj    = *c5c3v1alpha1.KeystoneRoleAssignment
	orderStatus = c5c3v1alpha1.KeystoneRoleAssignmentStatus
)

// loop is the order loop of KeystoneRoleAssignments (orders.Loop).
func (r *Reconciler) loop() orders.Loop[orderObj, orderStatus] {
	return orders.NewLoop[orderObj, orderStatus](r.Base, kind{r}, orders.KindKeystoneRoleAssignment, c5c3v1alpha1.FinalizerKeystoneRoleAssignmentTeardown,
		func(ra orderObj) (*orderStatus, *[]metav1.Condition, *int64) {
			return &ra.Status, &ra.Status.Conditions, &ra.Status.ObservedGeneration
		}, r.now)
}

// Reconcile runs one pass for the KeystoneRoleAssignment req names on its
// cluster (orders.Loop). Errors: a deregistered cluster (wrapping
// multicluster.ErrClusterNotFound, which drops the request), or a
// read/write failure (retried).
func (r *Reconciler) Reconcile(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
	return r.loop().Reconcile(ctx, req)
}

// kind is the KeystoneRoleAssignment part of the order loop (orders.Kind).
type kind struct{ *Reconciler }

func (kind) New() orderObj                                         { return &c5c3v1alpha1.KeystoneRoleAssignment{} }
func (kind) PlaneRef(ra orderObj) c5c3v1alpha1.ControlPlaneRefSpec { return ra.Spec.ControlPlaneRef }

// Teardown is the KeystoneRoleAssignment deletion path
// (docs/reference/keystoneroleassignment.md, "Deletion Semantics").
func (k kind) Teardown(*orders.Pass[orderObj]) orders.Teardown[orderObj] {
	return orders.Teardown[orderObj]{Finalizer: c5c3v1alpha1.FinalizerKeystoneRoleAssignmentTeardown, Phases: []orders.Phase[orderObj]{{Sets: childSets}},
		Hold: hold, Before: k.revokeStep, WaitRequeue: NotReadyRequeue}
}

func (k kind) Start(p *orders.Pass[orderObj]) orders.Actuator[orderStatus] {
	return &actuator{Settled: orders.Settled[orderObj, orderStatus]{Pass: p, Now: k.now, After: RequeueAfter}, r: k.Reconciler,
		o: Observation{Gate: p.Gate, Role: string(p.Obj.Spec.Role), Namespace: p.Obj.Namespace}}
}

// actuator is one normal pass of a KeystoneRoleAssignment (orders.Actuator).
type actuator struct {
	orders.Settled[orderObj, orderStatus]
	r                 *Reconciler
	o                 Observation
	userID, projectID string
}

// Act checks the role against the namespace's allowedRoles and, when it is
// allowed, assigns it (assign).
func (a *actuator) Act(ctx context.Context) error {
	p := a.Pass
	as, _ := orders.Assigned(p.Plane, p.Order.Cluster, p.Order.Namespace)
	a.o.Allowed = orders.RoleAllowed(as, string(p.Obj.Spec.Role))
	a.o.Plane, a.o.External = p.Plane.Namespace+"/"+p.Plane.Name, controlplane.IsExternal(p.Plane)
	if a.o.Allowed {
		a.userID, a.projectID = a.r.assign(ctx, p.Client, p.Obj, p.Plane, p.Order, &a.o)
	}
	return a.o.Error
}

// Status is AssignmentCondition and StatusOf.
func (a *actuator) Status() lifecycle.StatusUpdate[orderStatus] {
	ra := a.Pass.Obj
	cond := AssignmentCondition(a.o, ra.Generation)
	return a.Settle(cond, Conditions(cond, ra.Generation), StatusOf(ra.Status, a.o, a.userID, a.projectID))
}
