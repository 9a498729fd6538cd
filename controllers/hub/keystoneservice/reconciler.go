package keystoneservice

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/korc"
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

// kind is the KeystoneService kind of orders.Loop.
type kind struct{ r *Reconciler }

func (kind) New() ksObj { return &c5c3v1alpha1.KeystoneService{} }

func (kind) PlaneRef(ks ksObj) c5c3v1alpha1.ControlPlaneRefSpec { return ks.Spec.ControlPlaneRef }

func (k kind) Teardown(p *orders.Pass[ksObj]) orders.Teardown[ksObj] { return k.r.teardown(p.Obj) }

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

// pass is one normal pass: both blocks, each reading the gate itself.
type pass struct {
	r     *Reconciler
	p     *orders.Pass[ksObj]
	conds []metav1.Condition
	st    c5c3v1alpha1.KeystoneServiceStatus
}

func (a *pass) Act(ctx context.Context) error {
	ks, cp := a.p.Obj, a.p.Plane
	var errs []error
	catalog, catStatus := a.r.catalogBlock(ctx, ks, cp, a.p.Gate, &errs)
	account, accStatus := a.r.accountBlock(ctx, ks, cp, a.p.Gate, &errs)
	a.conds = Conditions(catalog, account, ks.Generation)
	a.st = ks.Status
	a.st.Catalog, a.st.Account = catStatus, accStatus
	return errors.Join(errs...)
}

// Gated is Act: a closed gate keeps each block's status and changes nothing.
func (a *pass) Gated(ctx context.Context) error { return a.Act(ctx) }

func (a *pass) Status() lifecycle.StatusUpdate[c5c3v1alpha1.KeystoneServiceStatus] {
	return lifecycle.StatusUpdate[c5c3v1alpha1.KeystoneServiceStatus]{Fields: a.st, Conditions: a.conds, Now: a.r.now()}
}

func (a *pass) Requeue() time.Duration {
	if meta.IsStatusConditionTrue(a.conds, c5c3v1alpha1.ConditionReady) {
		return ReadyResync
	}
	return NotReadyRequeue
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

// catalogBlock reports CatalogReady and status.catalog, projecting the
// block when the gate is open and sweeping it when it was removed.
func (r *Reconciler) catalogBlock(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane,
	gate Gate, errs *[]error) (metav1.Condition, *c5c3v1alpha1.KeystoneServiceCatalogStatus) {
	switch {
	case ks.Spec.Catalog == nil:
		c := NotDeclaredCatalog(ks.Generation)
		if gate.Passed() {
			// A removed block is swept; its condition waits for the sweep.
			left, err := r.sweep(ctx, ks, cp.Namespace, catalogSets)
			if err != nil {
				*errs = append(*errs, err)
			}
			if left > 0 {
				c = CatalogCondition(CatalogObservation{ServiceExists: true,
					Service: korc.State{Phase: korc.PhaseProgressing, Message: "removing the catalog children"}}, ks.Generation)
			}
		}
		return c, nil
	case !gate.Passed():
		return CatalogCondition(CatalogObservation{Gate: gate}, ks.Generation), ks.Status.Catalog
	}
	o := r.catalog(ctx, ks, cp)
	o.External = controlplane.IsExternal(cp)
	return CatalogCondition(o, ks.Generation), catalogStatus(ks, o)
}

// accountBlock reports AccountReady and status.account, projecting the
// block when the gate is open and sweeping it when it was removed.
func (r *Reconciler) accountBlock(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane,
	gate Gate, errs *[]error) (metav1.Condition, *c5c3v1alpha1.KeystoneServiceAccountStatus) {
	switch {
	case ks.Spec.Account == nil:
		c := NotDeclaredAccount(ks.Generation)
		if gate.Passed() {
			left, err := r.sweep(ctx, ks, cp.Namespace, accountSets(ks))
			if err != nil {
				*errs = append(*errs, err)
			}
			if left > 0 {
				c = AccountCondition(AccountObservation{Children: []Child{{What: "the account children",
					State: korc.State{Phase: korc.PhaseProgressing, Message: fmt.Sprintf("removing %d of them", left)}}}}, ks.Generation)
			}
		}
		return c, nil
	case !gate.Passed():
		return AccountCondition(AccountObservation{Gate: gate}, ks.Generation), ks.Status.Account
	}
	o, st := r.account(ctx, ks, cp)
	return AccountCondition(o, ks.Generation), st
}

// catalogStatus is status.catalog for o.
func catalogStatus(ks *c5c3v1alpha1.KeystoneService, o CatalogObservation) *c5c3v1alpha1.KeystoneServiceCatalogStatus {
	s := &c5c3v1alpha1.KeystoneServiceCatalogStatus{}
	if o.Service.Phase == korc.PhaseAvailable {
		s.ServiceID = o.Service.ID
	}
	for _, e := range ks.Spec.Catalog.Endpoints {
		es := c5c3v1alpha1.KeystoneServiceEndpointStatus{Interface: e.Interface}
		if st, ok := o.Endpoints[e.Interface]; ok && st.Phase == korc.PhaseAvailable {
			es.ID = st.ID
		}
		s.Endpoints = append(s.Endpoints, es)
	}
	return s
}

func (r *Reconciler) deleteIfExists(ctx context.Context, o client.Object) error {
	if err := r.client.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %T %s/%s: %w", o, o.GetNamespace(), o.GetName(), err)
	}
	return nil
}

// statusWriter is the KeystoneService's only status writer.
func statusWriter(rec recorder.EventRecorder) lifecycle.StatusWriter[*c5c3v1alpha1.KeystoneService, c5c3v1alpha1.KeystoneServiceStatus] {
	return lifecycle.StatusWriter[*c5c3v1alpha1.KeystoneService, c5c3v1alpha1.KeystoneServiceStatus]{Kind: "KeystoneService", Recorder: rec,
		Fields: func(ks *c5c3v1alpha1.KeystoneService) (*c5c3v1alpha1.KeystoneServiceStatus, *[]metav1.Condition, *int64) {
			return &ks.Status, &ks.Status.Conditions, &ks.Status.ObservedGeneration
		}}
}
