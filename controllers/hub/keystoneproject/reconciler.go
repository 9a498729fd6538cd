package keystoneproject

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// ControllerName names the controller, its field owner and its event source.
const ControllerName = "orderhub-keystoneproject"

// Reconciler reconciles KeystoneProject orders on every engaged cluster.
// Its loop's StatusWriter is its only status writer.
type Reconciler struct {
	orders.Base
	now func() metav1.Time
	// heldRequeue is Options.HeldRequeue.
	heldRequeue time.Duration
}

type (
	orderObj    = *c5c3v1alpha1.KeystoneProject
	orderStatus = c5c3v1alpha1.KeystoneProjectStatus
)

// loop is the order loop of KeystoneProjects (orders.Loop).
func (r *Reconciler) loop() orders.Loop[orderObj, orderStatus] {
	return orders.NewLoop[orderObj, orderStatus](r.Base, kind{r}, orders.KindKeystoneProject, c5c3v1alpha1.FinalizerKeystoneProjectTeardown,
		func(kp orderObj) (*orderStatus, *[]metav1.Condition, *int64) {
			return &kp.Status, &kp.Status.Conditions, &kp.Status.ObservedGeneration
		}, r.now)
}

// Reconcile runs one pass for the KeystoneProject req names on its cluster
// (orders.Loop). Errors: a deregistered cluster (wrapping
// multicluster.ErrClusterNotFound, which drops the request), or a
// read/write failure (retried).
func (r *Reconciler) Reconcile(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
	return r.loop().Reconcile(ctx, req)
}

// kind is the KeystoneProject part of the order loop (orders.Kind).
type kind struct{ *Reconciler }

func (kind) New() orderObj                                         { return &c5c3v1alpha1.KeystoneProject{} }
func (kind) PlaneRef(kp orderObj) c5c3v1alpha1.ControlPlaneRefSpec { return kp.Spec.ControlPlaneRef }

func (k kind) Teardown(*orders.Pass[orderObj]) orders.Teardown[orderObj] { return k.teardown() }

func (k kind) Start(p *orders.Pass[orderObj]) orders.Actuator[orderStatus] {
	return &actuator{r: k.Reconciler, p: p, o: Observation{Gate: p.Gate}}
}

// actuator is one normal pass of a KeystoneProject (orders.Actuator).
type actuator struct {
	r        *Reconciler
	p        *orders.Pass[orderObj]
	o        Observation
	domainID string
	ready    bool
}

// Act projects the order (project).
func (a *actuator) Act(ctx context.Context) error {
	a.o, a.domainID = a.r.project(ctx, a.p.Obj, a.p.Plane, a.p.Order)
	a.o.Gate = a.p.Gate
	return a.o.Error
}

func (*actuator) Gated(context.Context) error { return nil }

// Status is ProjectCondition and StatusOf.
func (a *actuator) Status() lifecycle.StatusUpdate[orderStatus] {
	kp := a.p.Obj
	cond := ProjectCondition(a.o, kp.Generation)
	a.ready = cond.Status == metav1.ConditionTrue
	return lifecycle.StatusUpdate[orderStatus]{Fields: StatusOf(kp.Status, a.o, EffectiveProjectName(kp), a.domainID),
		Conditions: Conditions(cond, kp.Generation), Now: a.r.now()}
}

// Requeue is RequeueAfter, backing off from the time the order has not been
// Ready (its conditions as this pass wrote them).
func (a *actuator) Requeue() time.Duration {
	kp := a.p.Obj
	return RequeueAfter(a.ready, a.p.Order.OnTargetCluster(),
		orders.NotReadyFor(kp.Status.Conditions, kp.CreationTimestamp.Time, a.r.now().Time))
}

// TenantName is the effective domain and project name (orders.TenantNamed).
func (kind) TenantName(kp orderObj, cp *c5c3v1alpha1.ControlPlane) (domain, name string) {
	return EffectiveDomain(kp, cp), EffectiveProjectName(kp)
}
