package keystoneservice

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// ControllerName names the controller, its field owner and its event source.
const ControllerName = "orderhub-keystoneservice"

// Reconciler reconciles KeystoneServices.
type Reconciler struct {
	client client.Client
	// reader reads uncached (orders.ClaimClient).
	reader   client.Reader
	recorder recorder.EventRecorder
	now      func() metav1.Time
	// granter assigns the account's roles.
	granter grants.Granter
	// verifier checks a password generation with Keystone before delivery.
	verifier controlplane.Verifier
}

// Requeue intervals; Keystone-side state such as grants is not watched, so a
// Ready registration re-checks it every ReadyResync.
const (
	NotReadyRequeue = 15 * time.Second
	ReadyResync     = 10 * time.Minute
)

type ksObj = *c5c3v1alpha1.KeystoneService

// kind is the KeystoneService kind of orders.Loop.
type kind struct{ r *Reconciler }

func (kind) New() ksObj { return &c5c3v1alpha1.KeystoneService{} }

func (kind) PlaneRef(ks ksObj) c5c3v1alpha1.ControlPlaneRefSpec { return ks.Spec.ControlPlaneRef }

// Teardown is the finalizer's spec (docs/reference/keystoneservice.md,
// "Deletion Semantics"): every child of both blocks, the account's name
// claims released last. It writes no status.
func (k kind) Teardown(p *orders.Pass[ksObj]) orders.Teardown[ksObj] {
	return orders.Teardown[ksObj]{Finalizer: c5c3v1alpha1.FinalizerKeystoneServiceTeardown, Release: k.r.releaseClaims,
		Phases: []orders.Phase[ksObj]{{Sets: append(append([]orders.ChildSet{}, catalogSets...), accountSets(p.Obj)...)}}}
}

// Start announces a deferred rotation schedule once, on the first pass.
func (k kind) Start(p *orders.Pass[ksObj]) orders.Actuator[c5c3v1alpha1.KeystoneServiceStatus] {
	ks := p.Obj
	if ks.Generation == 1 && ks.Status.ObservedGeneration == 0 && ks.Spec.Account != nil &&
		ks.Spec.Account.Rotation != nil && ks.Spec.Account.Rotation.Mode == c5c3v1alpha1.RotationModeScheduled {
		k.r.recorder.Eventf(ks, nil, corev1.EventTypeNormal, c5c3v1alpha1.EventScheduledRotationDeferred, "Reconcile",
			"account.rotation.mode Scheduled is accepted but scheduling is deferred: rotate with a CredentialRotation (target serviceAccountPassword, keystoneService %s)", ks.Name)
	}
	return &pass{r: k.r, p: p}
}

// loop is the KeystoneService's orders.Loop: its own gate (GateOf), an
// unconditional finalizer and children listed by its own labels (lister).
func (r *Reconciler) loop() orders.Loop[ksObj, c5c3v1alpha1.KeystoneServiceStatus] {
	return orders.Loop[ksObj, c5c3v1alpha1.KeystoneServiceStatus]{Kind: kind{r}, Finalizer: c5c3v1alpha1.FinalizerKeystoneServiceTeardown,
		Clusters: orders.LocalCluster{C: r.client}, Planes: r.client, Local: r.client, Status: statusWriter(r.recorder), Now: r.now,
		Overrides: orders.Overrides[ksObj]{
			Gate:     func(p *orders.Pass[ksObj]) conditions.Gate { return GateOf(p.Obj, p.Plane) },
			Finalize: func(*orders.Pass[ksObj]) bool { return true },
			Children: func(p *orders.Pass[ksObj]) orders.ChildLister { return r.lister(p.Obj) },
		}}
}

// statusWriter is the KeystoneService's only status writer.
func statusWriter(rec recorder.EventRecorder) lifecycle.StatusWriter[*c5c3v1alpha1.KeystoneService, c5c3v1alpha1.KeystoneServiceStatus] {
	return lifecycle.StatusWriter[*c5c3v1alpha1.KeystoneService, c5c3v1alpha1.KeystoneServiceStatus]{Kind: "KeystoneService", Recorder: rec,
		Fields: func(ks *c5c3v1alpha1.KeystoneService) (*c5c3v1alpha1.KeystoneServiceStatus, *[]metav1.Condition, *int64) {
			return &ks.Status, &ks.Status.Conditions, &ks.Status.ObservedGeneration
		}}
}
