package keystoneapplicationcredential

import (
	"context"
	"errors"
	"fmt"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/apply"
	"github.com/c5c3/orderhub/korc"
)

// Event reasons of the notable transitions besides condition changes (which
// are emitted under the condition's reason).
const (
	// EventRotationStarted (Normal): a successor generation was created.
	EventRotationStarted = "CredentialRotationStarted"
	// EventRotationSwitched (Normal): the order switched to a new
	// generation (status.credentialGeneration).
	EventRotationSwitched = "CredentialRotationSwitched"
	// EventPreviousDeleted (Normal): the superseded generation is gone from
	// Keystone after its grace period.
	EventPreviousDeleted = "PreviousCredentialDeleted"
	// EventFailedDeleted (Normal): a failed successor was deleted because
	// spec.credentialGeneration was raised above it.
	EventFailedDeleted = "FailedCredentialDeleted"
	// EventFailedReplaced (Warning): a failed successor was deleted without
	// a raised spec.credentialGeneration, so that the live credential does
	// not die without a successor (applicationcredential.ActionReplaceFailed).
	EventFailedReplaced = "FailedCredentialReplaced"
	// EventDelivered (Normal): the delivered Secret was (re)written.
	EventDelivered = "CredentialDelivered"
	// EventTransportErrorCleared (Warning): a latched transport error was
	// cleared from a credential so K-ORC retries.
	EventTransportErrorCleared = "TransportErrorCleared"
)

// NotReadyRequeue is the longest an order that is not converged (and not
// frozen) waits for its next pass when no watched event arrives: Keystone
// state (an expiring credential, a grant) is not watched.
const NotReadyRequeue = 30 * time.Second

// Reconciler reconciles KeystoneApplicationCredentials on every engaged
// cluster. Children are read and written on the management cluster through
// local; the order and its delivered Secret through the order's cluster's
// client.
type Reconciler struct {
	orders.Base
	now func() time.Time
	// resync is Options.ReadyResync, prober Options.Prober; probes the
	// last verification of each order's delivered credential (a restarted
	// hub verifies each converged order once a resync after it first sees
	// it). logins holds, per order, the user's password generation whose
	// login Keystone refused (ErrLoginRefused): a restarted hub tries once
	// more.
	resync  time.Duration
	prober  Prober
	probes  memo[probeRecord]
	revoker Revoker
	logins  memo[int64]
}

// pass carries one reconcile pass of one order.
type pass struct {
	r        *Reconciler
	oc       client.Client // the order's cluster
	ac       *c5c3v1alpha1.KeystoneApplicationCredential
	ord      orders.Order
	cp       *c5c3v1alpha1.ControlPlane
	gate     orders.Gate // the shared gate (orders.GateOf); unset in teardown
	ns       string      // the plane's namespace, where the children live
	prefix   string      // korc.ChildPrefix of the order
	lbl      map[string]string
	now      time.Time
	schedule applicationcredential.Schedule
	st       c5c3v1alpha1.KeystoneApplicationCredentialStatus
	obs      applicationcredential.Observation
	conds    []metav1.Condition // the pass's conditions (Status)
	creds    []applicationcredential.Credential
	credObjs map[int64]*orcv1alpha1.ApplicationCredential
	// passwordGen is the user's status.passwordGeneration the mint-cloud
	// document was built from on this pass (0 when not written).
	passwordGen int64
	// mint is the mint cloud's parameters (the user's id and password, the
	// project, the catalog entry) once the references passed; nil before.
	mint *applicationcredential.MintParams
	// revokePending: a superseded credential is not confirmed gone from
	// Keystone yet (confirmRevoked); the next pass comes after at most
	// NotReadyRequeue.
	revokePending bool
}

// event records an event on the order. The recorder writes to the
// management cluster only, so an order on a target cluster gets none (the
// API server would refuse an event in a namespace it does not have); its
// conditions carry the same information (orders.StatusWriter,
// ManagementEventsOnly).
func (p *pass) event(typ, reason, action, format string, args ...any) {
	orders.Event(p.r.Recorder, p.ord, p.ac, typ, reason, action, format, args...)
}

type (
	orderObj    = *c5c3v1alpha1.KeystoneApplicationCredential
	orderStatus = c5c3v1alpha1.KeystoneApplicationCredentialStatus
)

// loop is the order loop of KeystoneApplicationCredentials (orders.Loop).
// Its status write is guarded by the order's resourceVersion: a pass that
// read a stale order (the cache lags a write) and changes its status fails
// with a Conflict and runs again on the current one (orders.StaleRequeue);
// one that changes nothing writes nothing (orders.PatchStatus).
func (r *Reconciler) loop() orders.Loop[orderObj, orderStatus] {
	l := orders.NewLoop[orderObj, orderStatus](r.Base, kind{r}, orders.KindKeystoneApplicationCredential,
		c5c3v1alpha1.FinalizerKeystoneApplicationCredentialTeardown,
		func(ac orderObj) (*orderStatus, *[]metav1.Condition, *int64) {
			return &ac.Status, &ac.Status.Conditions, &ac.Status.ObservedGeneration
		}, func() metav1.Time { return metav1.NewTime(r.now()) })
	l.Status.OptimisticLock = true
	return l
}

// Reconcile runs one pass for a KeystoneApplicationCredential on
// req.ClusterName (docs/reference/keystoneapplicationcredential.md;
// orders.Loop): the shared gate, the reference gates, the Keystone-side
// step applicationcredential.Decide chooses, the delivery, and the status.
// A deregistered cluster's error is returned as is (the builder drops the
// request).
func (r *Reconciler) Reconcile(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
	return r.loop().Reconcile(ctx, req)
}

// kind is the KeystoneApplicationCredential part of the order loop
// (orders.Kind); a pass is its orders.Actuator.
type kind struct{ *Reconciler }

func (kind) New() orderObj                                         { return &c5c3v1alpha1.KeystoneApplicationCredential{} }
func (kind) PlaneRef(ac orderObj) c5c3v1alpha1.ControlPlaneRefSpec { return ac.Spec.ControlPlaneRef }

func (k kind) Teardown(p *orders.Pass[orderObj]) orders.Teardown[orderObj] {
	return k.newPass(p).teardown()
}

func (k kind) Start(p *orders.Pass[orderObj]) orders.Actuator[orderStatus] {
	q := k.newPass(p)
	q.obs = applicationcredential.Observation{Gate: p.Gate, SecretName: orders.SecretName(p.Obj.Name)}
	return q
}

// newPass begins a pass of p's order at the clock's current second.
func (r *Reconciler) newPass(p *orders.Pass[orderObj]) *pass {
	ac, ord := p.Obj, p.Order
	planeNS, _ := orders.PlaneKey(ac.Spec.ControlPlaneRef, ac.Namespace)
	return &pass{r: r, oc: p.Client, ac: ac, ord: ord, cp: p.Plane, gate: p.Gate, ns: planeNS,
		now:      r.now().UTC().Truncate(time.Second), // metav1.Time keeps seconds
		prefix:   korc.ChildPrefix(ac.Name, korc.OrderKey(ord.Cluster, ord.Namespace, ord.Name), korc.InfixApplicationCredential),
		lbl:      orders.ChildLabels(ord),
		schedule: applicationcredential.ScheduleOf(&ac.Spec),
		st:       *ac.Status.DeepCopy()}
}

// Act runs the pass behind an open gate (run); status.nextRotation follows
// the schedule on every such pass, not only at a switch: a changed or
// turned-off schedule is reported at once
// (docs/reference/keystoneapplicationcredential.md, "Status": "Absent with
// the schedule off").
func (p *pass) Act(ctx context.Context) error {
	err := p.run(ctx)
	p.st = applicationcredential.WithNextRotation(p.st, p.schedule)
	return err
}

// Gated does nothing: a frozen (or otherwise gated) order changes nothing
// but its status: nothing is created, rotated, delivered, repaired or swept
// (docs/reference/keystoneapplicationcredential.md, "Consent").
func (*pass) Gated(context.Context) error { return nil }

// Status is applicationcredential.Conditions and the pass's status fields.
func (p *pass) Status() orders.StatusUpdate[orderStatus] {
	p.obs.Current = p.st.CredentialGeneration
	p.obs.Credentials = p.creds
	p.obs.ExpiredNow = applicationcredential.Expired(timeOf(p.st.CredentialExpiresAt), p.now)
	p.conds = applicationcredential.Conditions(p.obs, p.ac.Generation)
	return orders.StatusUpdate[orderStatus]{Fields: p.st, Conditions: p.conds, Now: metav1.NewTime(p.now)}
}

// Requeue is applicationcredential.RequeueAfter, behind an open gate at
// most NotReadyRequeue while not Ready and ReadyResync once Ready.
func (p *pass) Requeue() time.Duration {
	in := applicationcredential.InputFrom(p.ac, p.now)
	in.Gate = p.gate
	onTarget := p.ord.OnTargetCluster()
	wait := applicationcredential.RequeueAfter(in, onTarget)
	ready := p.conds[2].Status == metav1.ConditionTrue
	if p.gate.Passed() && !ready && (wait == 0 || wait > NotReadyRequeue) {
		wait = NotReadyRequeue
	}
	if p.revokePending && (wait == 0 || wait > NotReadyRequeue) {
		wait = NotReadyRequeue
	}
	if p.gate.Passed() && ready && (wait == 0 || wait > p.r.resync) {
		// A converged order verifies its delivered credential every
		// resync (probe): an out-of-band deletion is not watched.
		wait = p.r.resync
	}
	return orders.CapTarget(wait, onTarget)
}

// run is the pass behind an open shared gate: observe the credentials and
// the delivered Secret, probe the live credential, carry out the decided
// Keystone-side step, then deliver. Kubernetes-level failures are recorded
// in p.obs (CredentialError, DeliveryError) and returned.
func (p *pass) run(ctx context.Context) error {
	in := applicationcredential.InputFrom(p.ac, p.now)
	refs, secret, err := p.observeCredentials(ctx, &in)
	if err != nil {
		p.obs.CredentialError = err
		return err
	}
	delivered, err := p.observeDelivered(ctx, &in)
	if err != nil {
		p.obs.DeliveryError = err
		return err
	}
	if in.Refusal.Passed() {
		p.probe(ctx, &in, secret, refs.ca)
	}
	if err := p.carryOut(ctx, applicationcredential.Decide(in)); err != nil {
		p.obs.CredentialError = err
		return err
	}
	if err := p.clearLatchedTransportErrors(ctx); err != nil {
		p.obs.TransportRetryError = err
	}
	p.classifyFirst()
	p.obs.Previous = p.st.PreviousCredentialGeneration
	p.deliver(ctx, delivered)
	return p.obs.DeliveryError
}

// observeCredentials reads the references (their refusal into in and
// p.obs), writes the mint-cloud document behind a passed refusal, lists
// the credential generations and reads the live generation's secret,
// recording a lost secret-v<N>. It returns the references read and that
// secret.
func (p *pass) observeCredentials(ctx context.Context, in *applicationcredential.Input) (refsRead, []byte, error) {
	refs, err := p.references(ctx)
	if err != nil {
		return refs, nil, err
	}
	in.Refusal = applicationcredential.RefusalOf(refs.References)
	p.obs.Refusal = in.Refusal
	if in.Refusal.Passed() {
		if err := p.writeMintCloud(ctx, refs); err != nil {
			return refs, nil, err
		}
		p.passwordGen = refs.User.Status.PasswordGeneration
		in.PasswordGeneration = p.passwordGen
		m := p.mintParams(refs)
		p.mint = &m
	}
	if err := p.listCredentials(ctx); err != nil {
		return refs, nil, err
	}
	in.Credentials = p.creds
	cur := p.st.CredentialGeneration
	if cur == 0 {
		return refs, nil, nil
	}
	secret, ok, err := p.secretValue(ctx, cur)
	if err != nil {
		return refs, nil, err
	}
	// "The Secret holding the live credential's secret is gone from the
	// cluster" (docs/reference/keystoneapplicationcredential.md, "Rotation")
	// is read as secret-v<N> in the plane's namespace, the only place the
	// secret lives besides the backup; a deleted delivered Secret is written
	// again ("Delivered Secret contract"), not rotated.
	in.SecretLost = !ok
	if !ok {
		p.obs.LostSecret = p.ns + "/" + p.child(korc.SecretDiscriminator(cur))
	}
	return refs, secret, nil
}

// observeDelivered reads the delivered Secret (foreign: not the order's)
// and records in in whether it carries the current document and the
// current credential's id: the id decides the previous generation's
// deletion, since a lost secret-v<N> makes the document unbuildable but
// does not take the credential from the consumer.
func (p *pass) observeDelivered(ctx context.Context, in *applicationcredential.Input) (*corev1.Secret, error) {
	delivered, foreign, err := p.readDelivered(ctx)
	if err != nil {
		return nil, err
	}
	p.obs.ForeignSecret = foreign
	data, ok, err := p.currentData(ctx)
	if err != nil {
		return nil, err
	}
	if ok && !foreign {
		in.Delivered = carries(delivered, data)
	}
	in.DeliveredID = !foreign && carriesID(delivered, p.st.CredentialID)
	return delivered, nil
}

// classifyFirst names, against an External-mode plane, K-ORC's classified
// cause for the first generation not becoming Available (p.obs.Classified).
func (p *pass) classifyFirst() {
	if p.st.CredentialGeneration != 0 || !controlplane.IsExternal(p.cp) {
		return
	}
	if s, ok := applicationcredential.Successor(p.creds, 0); ok {
		if reason, ok := korc.ClassifyExternal(s.State); ok {
			p.obs.Classified = orders.Gate{Reason: reason, Message: fmt.Sprintf(
				"K-ORC cannot create generation %d: %s", s.Generation, s.State.Message)}
		}
	}
}

// carryOut carries out d, the Keystone-side step of the pass
// (docs/reference/keystoneapplicationcredential.md, "Rotation").
func (p *pass) carryOut(ctx context.Context, d applicationcredential.Decision) error {
	switch d.Action {
	case applicationcredential.ActionCreate:
		if err := p.createGeneration(ctx, d.Generation); err != nil {
			return err
		}
		if p.st.CredentialGeneration > 0 {
			p.event(corev1.EventTypeNormal, EventRotationStarted, "Rotate",
				"creating generation %d beside delivered generation %d (trigger %s)", d.Generation, p.st.CredentialGeneration, d.Trigger)
		}
	case applicationcredential.ActionSwitch:
		o := p.credObjs[d.Generation]
		id := korc.IDOf(o)
		if id == "" {
			return nil // Available without an id: wait for K-ORC's status
		}
		prev := p.st.CredentialGeneration
		p.obs.Rejected = false // a probe judged the superseded credential
		p.st = applicationcredential.Switch(p.st, p.schedule, p.now, d.Generation, id, expiresAtOf(o))
		if prev > 0 {
			p.event(corev1.EventTypeNormal, EventRotationSwitched, "Rotate",
				"switched to generation %d; generation %d is deleted at %s", d.Generation, prev,
				p.st.PreviousCredentialDeleteAt.UTC().Format(time.RFC3339))
		}
	case applicationcredential.ActionDeleteFailed:
		if err := p.deleteGeneration(ctx, d.Generation); err != nil {
			return err
		}
		p.event(corev1.EventTypeNormal, EventFailedDeleted, "Rotate",
			"deleting failed generation %d: spec.credentialGeneration was raised above it", d.Generation)
	case applicationcredential.ActionReplaceFailed:
		// Deviation from docs/reference/keystoneapplicationcredential.md,
		// "Rotation" (a CredentialFailed successor "is continued as well until
		// spec.credentialGeneration is raised above it"): see
		// applicationcredential.Input.replaceFailed.
		if err := p.deleteGeneration(ctx, d.Generation); err != nil {
			return err
		}
		msg := "the live generation %d is due for rotation, expiring or gone"
		if d.Replace == applicationcredential.ReplacePasswordRotated {
			msg = "K-ORC could not authenticate (401) and the user's password has since rotated; live generation %d stays delivered"
		}
		p.event(corev1.EventTypeWarning, EventFailedReplaced, "Rotate",
			"deleting failed generation %d to create it anew: "+msg, d.Generation, p.st.CredentialGeneration)
	case applicationcredential.ActionDeletePrevious:
		return p.deletePrevious(ctx, d.Generation)
	}
	return nil
}

// deletePrevious deletes the superseded generation gen once its grace
// period passed, and clears status.previousCredential* once K-ORC no longer
// lists it and Keystone confirms the credential gone (confirmRevoked;
// docs/reference/keystoneapplicationcredential.md, "Rotation", step 3).
func (p *pass) deletePrevious(ctx context.Context, gen int64) error {
	if o, listed := p.credObjs[gen]; listed {
		if o.DeletionTimestamp.IsZero() {
			return p.deleteLocal(ctx, &orcv1alpha1.ApplicationCredential{}, o.Name)
		}
		return nil
	}
	if !p.confirmRevoked(ctx, gen) {
		return nil
	}
	if err := p.deleteGeneration(ctx, gen); err != nil {
		return err
	}
	p.st.PreviousCredentialID, p.st.PreviousCredentialGeneration, p.st.PreviousCredentialDeleteAt = "", 0, nil
	p.event(corev1.EventTypeNormal, EventPreviousDeleted, "Rotate", "generation %d is deleted from Keystone", gen)
	return nil
}

// confirmRevoked reports whether the superseded credential
// (status.previousCredentialID) of generation gen, whose K-ORC
// ApplicationCredential is gone, may be forgotten: Keystone no longer holds
// it. K-ORC may have released it without deleting it (Revoker), so the hub
// deletes it as its user. Until that is confirmed status.previousCredential*
// stays and the order looks again after NotReadyRequeue (p.revokePending);
// the delivered credential is not affected, so no condition changes. A
// refused login is not tried again until the user's password generation
// changes (no added failed logins toward Keystone's lockout). The wait is
// bounded: once the live credential is within the grace period of its
// expiry, rejected by Keystone or its secret lost, an unconfirmed
// credential is forgotten on K-ORC's word (Warning
// PreviousCredentialUnconfirmed), because no rotation starts while it is
// kept and the live credential must not die without a successor
// (docs/reference/keystoneapplicationcredential.md, "Rotation"). Without the
// mint parameters (references not passed) K-ORC's word is taken.
func (p *pass) confirmRevoked(ctx context.Context, gen int64) bool {
	id := p.st.PreviousCredentialID
	if id == "" || p.mint == nil {
		return true
	}
	var err error
	if g, refused := p.r.logins.get(p.prefix); refused && g == p.passwordGen {
		err = ErrLoginRefused // not tried again with this password
	} else {
		var existed bool
		existed, err = p.r.revoker(ctx, RevokeRequest{Mint: *p.mint, CredentialID: id})
		if err == nil {
			p.r.logins.forget(p.prefix)
			if existed {
				p.event(corev1.EventTypeWarning, EventPreviousRevoked, "Rotate",
					"K-ORC released generation %d while Keystone still held its credential %s; deleted it from Keystone as its user", gen, id)
			}
			return true
		}
		if errors.Is(err, ErrLoginRefused) {
			p.r.logins.set(p.prefix, p.passwordGen)
		}
	}
	var urgent string
	switch exp := p.st.CredentialExpiresAt; {
	case exp != nil && !p.now.Before(exp.Add(-p.schedule.GracePeriod)):
		urgent = "the live credential expires at " + exp.UTC().Format(time.RFC3339)
	case p.obs.Rejected:
		urgent = "Keystone rejects the live credential"
	case p.obs.LostSecret != "":
		urgent = "the live credential's secret is lost"
	}
	if urgent != "" {
		p.event(corev1.EventTypeWarning, EventPreviousUnconfirmed, "Rotate",
			"could not confirm that superseded generation %d (%s) is gone from Keystone (%v); forgotten on K-ORC's word because %s and its rotation must start",
			gen, id, err, urgent)
		return true
	}
	p.revokePending = true
	logf.FromContext(ctx).Info("the superseded credential is not confirmed gone from Keystone yet; looked at again",
		"generation", gen, "credential", id, "retryAfter", NotReadyRequeue.String(), "error", err.Error())
	return false
}

// isNotOwned reports a delivery refused for ownership (DeliveryRefused).
func isNotOwned(err error) bool { return apply.IsNotOwned(err) }

// timeOf unwraps t, keeping nil.
func timeOf(t *metav1.Time) *time.Time {
	if t == nil {
		return nil
	}
	return &t.Time
}
