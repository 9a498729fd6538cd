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
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/nameprobe"
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
	// prober is Options.Prober.
	prober nameprobe.Prober
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

func (kind) New() orderObj { return &c5c3v1alpha1.KeystoneUser{} }

func (kind) PlaneRef(ku orderObj) c5c3v1alpha1.ControlPlaneRefSpec { return ku.Spec.ControlPlaneRef }

// Teardown is the KeystoneUser deletion path
// (docs/reference/keystoneuser.md, "Deletion Semantics"); a frozen order is
// torn down all the same.
func (k kind) Teardown(*orders.Pass[orderObj]) orders.Teardown[orderObj] {
	return orders.Teardown[orderObj]{Finalizer: c5c3v1alpha1.FinalizerKeystoneUserTeardown, Phases: []orders.Phase[orderObj]{{Sets: childSets}},
		Hold: k.hold, WaitRequeue: NotReadyRequeue, Forget: k.forget, Release: orders.ReleaseTenantName[orderObj](k, k.Claims, ClaimKind)}
}

func (k kind) Start(p *orders.Pass[orderObj]) orders.Actuator[orderStatus] {
	return &actuator{gate: p.Gate, obs: Observation{Gate: p.Gate}, op: p, p: &pass{r: k.Reconciler, o: p.Order, oc: p.Client, ku: p.Obj,
		cp: p.Plane, st: p.Obj.Status.DeepCopy(), now: k.now(), lbl: orders.ChildLabels(p.Order)}}
}

// TenantName is the effective domain and user name (orders.TenantNamed).
func (kind) TenantName(ku orderObj, cp *c5c3v1alpha1.ControlPlane) (domain, name string) {
	return EffectiveDomain(ku, cp), EffectiveUserName(ku)
}
