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
	"github.com/c5c3/orderhub/controllers/hub/atrest"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/apply"
	"github.com/c5c3/orderhub/korc"
)

// Event reasons besides condition changes.
const (
	EventRotationStarted  = "CredentialRotationStarted"
	EventRotationSwitched = "CredentialRotationSwitched"
	// EventPreviousDeleted (Normal): the superseded generation's grace ended and
	// it is gone.
	EventPreviousDeleted = "PreviousCredentialDeleted"
	EventFailedDeleted   = "FailedCredentialDeleted"
	// EventFailedReplaced (Warning): applicationcredential.ActionReplaceFailed.
	EventFailedReplaced        = "FailedCredentialReplaced"
	EventDelivered             = "CredentialDelivered"
	EventTransportErrorCleared = "TransportErrorCleared"
)

// NotReadyRequeue is the longest a not converged order waits: Keystone state
// is not watched.
const NotReadyRequeue = 30 * time.Second

// Reconciler reconciles KeystoneApplicationCredentials on every engaged
// cluster: children on the management cluster, the order and its delivered
// Secret on the order's cluster.
type Reconciler struct {
	orders.Base
	now func() time.Time
	// probes holds each order's last probe; logins the password generation whose
	// login Keystone refused (ErrLoginRefused).
	resync  time.Duration
	prober  Prober
	probes  memo[probeRecord]
	revoker Revoker
	logins  memo[int64]
	roles   RoleLister
	budget  *orders.RotationBudget
	// rest is the at-rest record per order (probe), checker the cheap check,
	// loginPeriod the spacing of token requests at rest.
	rest        atrest.Memory
	checker     atrest.Checker
	loginPeriod time.Duration
}

type pass struct {
	r        *Reconciler
	oc       client.Client // the order's cluster
	ac       *c5c3v1alpha1.KeystoneApplicationCredential
	ord      orders.Order
	cp       *c5c3v1alpha1.ControlPlane
	gate     conditions.Gate // the shared gate (orders.GateOf); unset in teardown
	ns       string          // the plane's namespace, where the children live
	prefix   string          // korc.ChildPrefix of the order
	lbl      map[string]string
	now      time.Time
	schedule applicationcredential.Schedule
	st       c5c3v1alpha1.KeystoneApplicationCredentialStatus
	obs      applicationcredential.Observation
	conds    []metav1.Condition // the pass's conditions (Status)
	creds    []applicationcredential.Credential
	credObjs map[int64]*orcv1alpha1.ApplicationCredential
	// passwordGen is the user's password generation used this pass (0: none).
	passwordGen int64
	// mint is set once the references passed.
	mint *applicationcredential.MintParams
	// revokePending: a superseded credential is not confirmed gone yet.
	revokePending bool
	// rotated and failures are the rotations switched and the failed
	// generations deleted this pass; they are counted once the status that
	// records them is written (Status), so a pass retried after a conflict
	// counts nothing twice.
	rotated  bool
	failures int
	// budgetUntil is when the rotation budget frees the rotation it withheld
	// this pass (nil: none withheld).
	budgetUntil *time.Time
	// release is the consumers' verdict on the superseded credential (release.go).
	release consumers.Release
}

// event records an event on the order (orders.Event).
func (p *pass) event(typ, reason, action, format string, args ...any) {
	orders.Event(p.r.Recorder, p.ord, p.ac, typ, reason, action, format, args...)
}

type (
	orderObj    = *c5c3v1alpha1.KeystoneApplicationCredential
	orderStatus = c5c3v1alpha1.KeystoneApplicationCredentialStatus
)

// loop is the order loop under lifecycle.StatusWriter.OptimisticLock.
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
// req.ClusterName (docs/reference/keystoneapplicationcredential.md).
func (r *Reconciler) Reconcile(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
	return r.loop().Reconcile(ctx, req)
}

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

// Act runs the pass behind an open gate and recomputes status.nextRotation
// (docs/reference/keystoneapplicationcredential.md, "Status").
func (p *pass) Act(ctx context.Context) error {
	err := p.run(ctx)
	p.st = applicationcredential.WithNextRotation(p.st, p.schedule)
	return err
}

// Gated changes nothing (docs/reference/keystoneapplicationcredential.md, "Consent").
func (*pass) Gated(context.Context) error { return nil }

func (p *pass) Status() lifecycle.StatusUpdate[orderStatus] {
	p.obs.Current = p.st.CredentialGeneration
	p.obs.Credentials = p.creds
	p.obs.ExpiredNow = applicationcredential.Expired(timeOf(p.st.CredentialExpiresAt), p.now)
	p.conds = applicationcredential.Conditions(p.obs, p.ac.Generation)
	m := orders.CredentialMetrics{ExpiresAt: timeOf(p.st.CredentialExpiresAt), NextRotation: timeOf(p.st.NextRotation),
		GracePeriod: p.schedule.GracePeriod, Failing: p.conds[0].Reason == c5c3v1alpha1.ReasonCredentialFailed}
	return lifecycle.StatusUpdate[orderStatus]{Fields: p.st, Conditions: p.conds, Now: metav1.NewTime(p.now),
		Written: func() { p.recordWritten(m) }}
}

// recordWritten records the credential gauges and the pass's rotations and
// failed rotations once its status is written (docs/reference/metrics.md).
func (p *pass) recordWritten(m orders.CredentialMetrics) {
	orders.RecordCredential(p.ord, m)
	if p.rotated {
		orders.RecordRotation(p.ord)
	}
	for range p.failures {
		orders.RecordRotationFailure(p.ord)
	}
}

// Requeue is applicationcredential.RequeueAfter, at most NotReadyRequeue while
// not Ready and ReadyResync once Ready.
func (p *pass) Requeue() time.Duration {
	in := applicationcredential.InputFrom(p.ac, p.now)
	in.Gate = p.gate
	in.HeldUntil = p.budgetUntil
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
		wait = p.r.resync
	}
	return orders.CapTarget(wait, onTarget)
}

// admitBudget spends one token of the namespace's budget for d, an
// ActionCreate of a budgeted trigger (the first credential too), or holds it while the budget is spent
// (docs/reference/controlplane.md, "Rotation budget").
func (p *pass) admitBudget(d applicationcredential.Decision) applicationcredential.Decision {
	if d.Action != applicationcredential.ActionCreate || !applicationcredential.Budgeted(d.Trigger) {
		return d
	}
	hold := p.r.budget.Take(p.cp, p.ord, p.now)
	if !hold.Held() {
		return d
	}
	until := p.now.Add(hold.Wait)
	p.budgetUntil = &until
	what := fmt.Sprintf("the rotation to generation %d (trigger %s)", d.Generation, d.Trigger)
	if d.Trigger == applicationcredential.TriggerInitial {
		what = fmt.Sprintf("the first credential (generation %d)", d.Generation)
	}
	p.obs.BudgetHeld = hold.Message(what, p.now)
	return applicationcredential.Decision{Action: applicationcredential.ActionHold, Redeliver: d.Redeliver}
}

// run observes, probes, carries out the decided step and delivers.
// Kubernetes-level failures are recorded in p.obs and returned.
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
		p.probe(ctx, &in, secret, refs.ca, refs.UserID)
	}
	in.ScopeChanged = p.st.CredentialGeneration > 0 && p.scopeChanged()
	p.weighRelease(&in, delivered)
	d, err := p.admitScope(ctx, applicationcredential.Decide(in))
	if err != nil {
		p.obs.CredentialError = err
		return err
	}
	d = p.admitBudget(d)
	if err := p.carryOut(ctx, d); err != nil {
		p.obs.CredentialError = err
		return err
	}
	if err := p.clearLatchedTransportErrors(ctx); err != nil {
		p.obs.TransportRetryError = err
	}
	p.classifyFirst()
	p.obs.Previous = p.st.PreviousCredentialGeneration
	if p.obs.Previous > 0 && !p.release.Revoke {
		p.obs.PreviousWaiting, p.obs.PreviousDeleteAt = p.release.Waiting, timeOf(p.st.PreviousCredentialDeleteAt)
	}
	p.deliver(ctx, delivered)
	return p.obs.DeliveryError
}

// observeCredentials reads the references, writes the mint-cloud document,
// lists the generations and returns the live generation's secret.
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
	// The live secret lives only in secret-v<N> and the backup
	// (docs/reference/keystoneapplicationcredential.md, "Rotation").
	in.SecretLost = !ok
	if !ok {
		p.obs.LostSecret = p.ns + "/" + p.child(korc.SecretDiscriminator(cur))
	}
	return refs, secret, nil
}

// observeDelivered reads the delivered Secret and whether it carries the
// current document and credential id.
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

// classifyFirst sets p.obs.Classified against an External plane.
func (p *pass) classifyFirst() {
	if p.st.CredentialGeneration != 0 || !controlplane.IsExternal(p.cp) {
		return
	}
	if s, ok := applicationcredential.Successor(p.creds, 0); ok {
		if reason, ok := korc.ClassifyExternal(s.State); ok {
			p.obs.Classified = conditions.Gate{Reason: reason, Message: fmt.Sprintf(
				"K-ORC cannot create generation %d: %s", s.Generation, s.State.Message)}
		}
	}
}

// carryOut carries out d (docs/reference/keystoneapplicationcredential.md, "Rotation").
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
		p.confirmIssued(o, id)
		if prev > 0 {
			p.rotated = true
			p.event(corev1.EventTypeNormal, EventRotationSwitched, "Rotate",
				"switched to generation %d; generation %d is deleted at %s", d.Generation, prev,
				p.st.PreviousCredentialDeleteAt.UTC().Format(time.RFC3339))
		}
	case applicationcredential.ActionDeleteFailed:
		if err := p.deleteGeneration(ctx, d.Generation); err != nil {
			return err
		}
		p.failures++
		p.event(corev1.EventTypeNormal, EventFailedDeleted, "Rotate",
			"deleting failed generation %d: spec.credentialGeneration was raised above it", d.Generation)
	case applicationcredential.ActionReplaceFailed:
		// See applicationcredential.Input.replaceFailed for this deviation.
		if err := p.deleteGeneration(ctx, d.Generation); err != nil {
			return err
		}
		p.failures++
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

// deletePrevious deletes generation gen and clears status.previousCredential*
// once it is unlisted and confirmRevoked
// (docs/reference/keystoneapplicationcredential.md, "Rotation", step 3).
func (p *pass) deletePrevious(ctx context.Context, gen int64) error {
	if o, listed := p.credObjs[gen]; listed {
		if o.DeletionTimestamp.IsZero() {
			p.warnRevokedBeforeRollout(gen)
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

// confirmRevoked reports whether the superseded credential of gen may be
// forgotten: Keystone no longer holds it (Revoker). A refused login is not
// retried until the password generation changes. Once the live credential is
// dying it is forgotten on K-ORC's word (EventPreviousUnconfirmed)
// (docs/reference/keystoneapplicationcredential.md, "Rotation").
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

func isNotOwned(err error) bool { return apply.IsNotOwned(err) }

func timeOf(t *metav1.Time) *time.Time {
	if t == nil {
		return nil
	}
	return &t.Time
}
