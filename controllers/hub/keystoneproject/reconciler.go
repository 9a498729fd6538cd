package keystoneproject

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/controllers/hub/nameprobe"
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
	// prober is Options.Prober.
	prober nameprobe.Prober
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

// Teardown is the KeystoneProject deletion path
// (docs/reference/keystoneproject.md, "Deletion Semantics").
func (k kind) Teardown(*orders.Pass[orderObj]) orders.Teardown[orderObj] {
	return orders.Teardown[orderObj]{Finalizer: c5c3v1alpha1.FinalizerKeystoneProjectTeardown, Phases: []orders.Phase[orderObj]{{Sets: childSets}},
		Hold: k.hold, Waiting: deleting, WaitRequeue: NotReadyRequeue, Release: orders.ReleaseTenantName[orderObj](k, k.Claims, ClaimKind)}
}

func (k kind) Start(p *orders.Pass[orderObj]) orders.Actuator[orderStatus] {
	return &actuator{Settled: orders.Settled[orderObj, orderStatus]{Pass: p, Now: k.now, After: RequeueAfter}, r: k.Reconciler,
		o: Observation{Gate: p.Gate}}
}

// actuator is one normal pass of a KeystoneProject (orders.Actuator).
type actuator struct {
	orders.Settled[orderObj, orderStatus]
	r        *Reconciler
	o        Observation
	domainID string
}

// Act projects the order (project).
func (a *actuator) Act(ctx context.Context) error {
	p := a.Pass
	a.o, a.domainID = a.r.project(ctx, p.Obj, p.Plane, p.Order)
	a.o.Gate = p.Gate
	return a.o.Error
}

// Status is ProjectCondition and StatusOf.
func (a *actuator) Status() lifecycle.StatusUpdate[orderStatus] {
	kp := a.Pass.Obj
	cond := ProjectCondition(a.o, kp.Generation)
	return a.Settle(cond, Conditions(cond, kp.Generation), StatusOf(kp.Status, a.o, EffectiveProjectName(kp), a.domainID))
}

// TenantName is the effective domain and project name (orders.TenantNamed).
func (kind) TenantName(kp orderObj, cp *c5c3v1alpha1.ControlPlane) (domain, name string) {
	return EffectiveDomain(kp, cp), EffectiveProjectName(kp)
}
