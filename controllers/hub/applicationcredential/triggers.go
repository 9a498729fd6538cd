package applicationcredential

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"

	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/korc"
)

// Action is what one pass does on the Keystone side of an order. Exactly one
// is chosen per pass; see Decide for the order in which they are chosen.
type Action string

const (
	// ActionHold: a shared gate is closed (orders.Gate) or a reference gate
	// refuses (UserNotFound … NoRoleOnProject, WaitingForCABundle). Nothing
	// is created, rotated, switched or deleted, and the schedule pauses; the
	// credentials and the delivered Secret stay
	// (docs/reference/keystoneapplicationcredential.md, "Consent").
	ActionHold Action = "Hold"
	// ActionNone: converged; nothing to do before RequeueAfter.
	ActionNone Action = "None"
	// ActionCreate: create credential generation Decision.Generation (its
	// secret-v<N> and credential-v<N> children, with Schedule.ExpiresAt(now)):
	// the first credential or a rotation's successor.
	ActionCreate Action = "Create"
	// ActionContinue: a rotation is under way (a successor exists and is not
	// Available yet); re-apply it unchanged and wait. Never restarted
	// (docs/reference/keystoneapplicationcredential.md, "Rotation": "A rotation
	// already under way is continued, never restarted").
	ActionContinue Action = "Continue"
	// ActionSwitch: the successor Decision.Generation is Available; switch
	// the status to it (Switch) and deliver it once the backup holds it.
	ActionSwitch Action = "Switch"
	// ActionContinueFailed: K-ORC reported a terminal error on the successor
	// Decision.Generation and spec.credentialGeneration is not above it; it
	// stays, CredentialReady reads CredentialFailed
	// (docs/reference/keystoneapplicationcredential.md, "Rotation").
	ActionContinueFailed Action = "ContinueFailed"
	// ActionDeleteFailed: spec.credentialGeneration was raised above the
	// failed successor Decision.Generation; delete it. The raised generation
	// is created on a later pass once it is gone, so the order never holds
	// more than two credentials.
	ActionDeleteFailed Action = "DeleteFailed"
	// ActionReplaceFailed: the failed successor Decision.Generation is
	// deleted although spec.credentialGeneration was not raised above it,
	// because keeping it would let the live credential die
	// (Decision.Replace names why; see Decide). As for ActionDeleteFailed,
	// the next generation is created on a later pass once it is gone.
	ActionReplaceFailed Action = "ReplaceFailed"
	// ActionDeletePrevious: status.previousCredentialDeleteAt has passed;
	// delete generation Decision.Generation (status.previousCredentialGeneration)
	// and, once it is no longer listed, clear the status.previousCredential*
	// fields (docs/reference/keystoneapplicationcredential.md, "Rotation", step
	// 3).
	ActionDeletePrevious Action = "DeletePrevious"
	// ActionDeferred: a rotation trigger holds (Decision.Trigger), but a
	// second credential exists: the previous one's grace period runs, or a
	// credential is still being deleted. No rotation starts
	// (docs/reference/keystoneapplicationcredential.md, "Rotation": "No
	// rotation starts while a grace period runs, whatever the trigger, so the
	// order never holds more than two credentials").
	ActionDeferred Action = "Deferred"
)

// Trigger is why a credential is created (ActionCreate, ActionDeferred).
type Trigger string

const (
	// TriggerNone: no trigger holds.
	TriggerNone Trigger = ""
	// TriggerInitial: the order holds no credential yet
	// (status.credentialGeneration is 0).
	TriggerInitial Trigger = "Initial"
	// TriggerGeneration: spec.credentialGeneration is above
	// status.credentialGeneration; that generation is created directly.
	TriggerGeneration Trigger = "GenerationRaised"
	// TriggerCredentialGone: the delivered generation's K-ORC
	// ApplicationCredential is no longer listed, so the credential is gone
	// from Keystone. Not in the list of
	// docs/reference/keystoneapplicationcredential.md, "Rotation"; it is the
	// expiry trigger's case of a credential that no longer works for another
	// cause.
	TriggerCredentialGone Trigger = "CredentialGone"
	// TriggerRejected: Keystone answered 401/404 to a token request with
	// the delivered credential (ProbeDue): it was deleted out of band.
	// Treated like an expired credential.
	TriggerRejected Trigger = "CredentialRejected"
	// TriggerExpired: the live credential has expired in Keystone
	// (now ≥ status.credentialExpiresAt), also with the schedule off.
	TriggerExpired Trigger = "Expired"
	// TriggerSecretLost: the secret-v<N> Secret of the delivered generation
	// is gone from the cluster; Keystone cannot hand a secret back, so a new
	// credential replaces it (docs/reference/keystoneapplicationcredential.md,
	// "Rotation").
	TriggerSecretLost Trigger = "SecretLost"
	// TriggerSchedule: the schedule is due (now ≥ NextRotation).
	TriggerSchedule Trigger = "Scheduled"
)

// Replace is why a failed successor is replaced (ActionReplaceFailed).
type Replace string

const (
	// ReplaceNone: not replaced.
	ReplaceNone Replace = ""
	// ReplaceLiveDying: the schedule is due, or the live credential has
	// expired, is within its grace period of its expiry, or is gone from
	// Keystone.
	ReplaceLiveDying Replace = "LiveCredentialDue"
	// ReplacePasswordRotated: K-ORC's failure is an authentication failure
	// and the mint-cloud document has since been rebuilt from a newer
	// password generation of the user.
	ReplacePasswordRotated Replace = "UserPasswordRotated"
)

// FailedRetryBackoff is how long a failed successor replaced for
// ReplaceLiveDying must have existed first, so that a cause that fails
// every new generation as well (a revoked role, an unreachable Keystone
// answering 4xx) retries at this pace instead of on every pass.
const FailedRetryBackoff = 30 * time.Second

// Credential is one listed K-ORC ApplicationCredential child
// (credential-v<N>) of the order.
type Credential struct {
	// Generation is N of credential-v<N>.
	Generation int64
	// State is korc.StateOf the child.
	State korc.State
	// Deleting is true once the child has a deletionTimestamp; it still
	// counts as a credential until it is gone.
	Deleting bool
	// Created is the child's creationTimestamp.
	Created time.Time
	// PasswordGeneration is the user's status.passwordGeneration the
	// mint-cloud document was built from when the child was created (an
	// annotation on it); 0 when unknown.
	PasswordGeneration int64
}

// Input is everything Decide reads. Times are absolute; nil means absent.
type Input struct {
	// Now is the pass's clock reading.
	Now time.Time
	// Gate is the shared gate (orders.GateOf).
	Gate orders.Gate
	// Refusal is the first refusing reference gate (user, project, role,
	// CA bundle); Passed when none refuses.
	Refusal orders.Gate
	// Desired is DesiredGeneration(spec).
	Desired int64
	// Schedule is ScheduleOf(spec).
	Schedule Schedule
	// Current is status.credentialGeneration: the delivered generation, 0
	// before the first switch.
	Current int64
	// ExpiresAt is status.credentialExpiresAt.
	ExpiresAt *time.Time
	// LastRotation is status.lastRotation.
	LastRotation *time.Time
	// Previous is status.previousCredentialGeneration, 0 outside a grace
	// period.
	Previous int64
	// PreviousDeleteAt is status.previousCredentialDeleteAt.
	PreviousDeleteAt *time.Time
	// Credentials are the listed credential-v<N> children, in any order.
	Credentials []Credential
	// SecretLost is true when the secret-v<Current> Secret is gone from the
	// cluster (only read while Current > 0).
	SecretLost bool
	// Delivered is true when the delivered Secret exists, is owned by the
	// order and carries generation Current.
	Delivered bool
	// DeliveredID is true when the delivered Secret exists, is owned by the
	// order and its application_credential_id is status.credentialID: the
	// consumer holds generation Current, even when its secret-v<N> is lost
	// and Delivered can no longer be judged byte for byte.
	DeliveredID bool
	// DeliveryRecorded is true when status.secretName is set: the status
	// records that the delivered Secret carries generation Current, so
	// PreviousDeleteAt already counts the grace period from that switch
	// (MarkDelivered). Until then the superseded generation is not
	// deleted: the pass that first sees the switch moves PreviousDeleteAt.
	DeliveryRecorded bool
	// PasswordGeneration is the user's status.passwordGeneration the
	// mint-cloud document was rebuilt from on this pass.
	PasswordGeneration int64
	// Rejected is true when Keystone rejected a token request with the
	// delivered generation Current (RejectedByKeystone).
	Rejected bool
}

// Decision is Decide's verdict.
type Decision struct {
	// Action is the Keystone-side step of this pass.
	Action Action
	// Generation is the generation Action works on: the one to create,
	// continue, switch to or delete; 0 for ActionHold, ActionNone and
	// ActionDeferred.
	Generation int64
	// Trigger is why a credential is created (ActionCreate) or would be
	// (ActionDeferred); TriggerNone otherwise.
	Trigger Trigger
	// Replace is why a failed successor is replaced (ActionReplaceFailed);
	// ReplaceNone otherwise.
	Replace Replace
	// Redeliver is true when the delivered Secret does not carry the
	// current generation (missing, edited away or stale) and may be written
	// again from the current generation's document, once the backup holds
	// it. A lost delivered Secret is written again, not rotated
	// (docs/reference/keystoneapplicationcredential.md, "Delivered Secret
	// contract": "a deleted Secret is written again"; "A frozen order repairs
	// nothing").
	Redeliver bool
}

// Successor returns the listed credential that is not being deleted and
// whose generation is above current (the highest, if several are listed),
// and whether there is one: a rotation under way, or the first credential.
func Successor(creds []Credential, current int64) (Credential, bool) {
	var best Credential
	found := false
	for _, c := range creds {
		if c.Deleting || c.Generation <= current {
			continue
		}
		if !found || c.Generation > best.Generation {
			best, found = c, true
		}
	}
	return best, found
}

// listed reports whether generation gen is among creds.
func listed(creds []Credential, gen int64) bool {
	for _, c := range creds {
		if c.Generation == gen {
			return true
		}
	}
	return false
}

// NextRotation is in.Schedule.NextRotation from status.lastRotation and
// status.credentialExpiresAt, the value status.nextRotation should carry;
// nil with the schedule off or before the first credential.
func (in Input) NextRotation() *time.Time {
	if in.Current == 0 || in.LastRotation == nil {
		return nil
	}
	return in.Schedule.NextRotation(*in.LastRotation, in.ExpiresAt)
}

// trigger is the first rotation trigger that holds
// (docs/reference/keystoneapplicationcredential.md, "Rotation": "A rotation
// starts when one of these holds"), with the generation it creates: Desired for
// the first credential, else max(Current+1, Desired). That page lists the
// schedule first; here the most specific cause is reported first (Initial,
// GenerationRaised, CredentialGone, CredentialRejected, Expired, SecretLost,
// Scheduled). Every trigger creates the same generation, so the order only
// chooses which Trigger is reported.
func (in Input) trigger() (Trigger, int64) {
	next := max(in.Current+1, in.Desired)
	switch {
	case in.Current == 0:
		return TriggerInitial, in.Desired
	case in.Desired > in.Current:
		return TriggerGeneration, next
	case !listed(in.Credentials, in.Current):
		return TriggerCredentialGone, next
	case in.Rejected:
		return TriggerRejected, next
	case Expired(in.ExpiresAt, in.Now):
		return TriggerExpired, next
	case in.SecretLost:
		return TriggerSecretLost, next
	}
	if n := in.NextRotation(); n != nil && !in.Now.Before(*n) {
		return TriggerSchedule, next
	}
	return TriggerNone, 0
}

// Decide chooses the pass's action, first match wins:
//
//  1. ActionHold: the shared gate is closed or a reference gate refuses
//     (docs/reference/keystoneapplicationcredential.md, "Consent": a frozen
//     order creates, rotates, delivers, repairs and sweeps nothing; "A refusal
//     after the first credential pauses the schedule and keeps the delivered
//     Secret"). Redeliver is false under a closed shared gate and may be true
//     under a refusal.
//  2. ActionDeletePrevious: a previous generation is recorded,
//     now ≥ PreviousDeleteAt, and the delivered Secret carries generation
//     Current's id (DeliveredID; a lost secret-v<Current> does not keep the
//     previous generation, and the SecretLost trigger fires once it is
//     gone). The last condition keeps the superseded credential while a
//     consumer may still read it (a backup push or delivery that has not
//     completed yet): docs/reference/keystoneapplicationcredential.md,
//     "Delivered Secret contract", "the delivered credential is never invalid".
//     A credential kept that way still expires in Keystone on its own while the
//     schedule is on. The grace period also ends early, on the same
//     delivery conditions, once the live credential is within GracePeriod of
//     its expiry (liveExpiring): a delivery delayed past interval − grace
//     after the live credential was created (an outage of OpenBao, ESO or the
//     hub) would otherwise hold its successor back until the live credential
//     expired in the consumers' hands.
//  3. A successor exists (Successor): ActionSwitch when it is Available;
//     when it failed, ActionDeleteFailed if Desired is above it, else
//     ActionReplaceFailed when replaceFailed names a cause, else
//     ActionContinueFailed; otherwise ActionContinue. A rotation under way
//     is never restarted, whatever trigger holds.
//  4. A trigger holds (Initial, GenerationRaised, CredentialGone, Expired,
//     SecretLost, Scheduled; the first is reported): ActionDeferred while any
//     credential besides the current one is listed or a previous
//     generation is recorded (grace period), else ActionCreate of
//     max(Current+1, Desired) (Desired for the first credential).
//  5. ActionNone.
//
// Redeliver is set, independently of the action, when Current > 0, the
// shared gate is open and the Secret does not carry generation Current.
func Decide(in Input) Decision {
	d := Decision{Action: ActionNone}
	if !in.Gate.Passed() {
		d.Action = ActionHold
		return d
	}
	d.Redeliver = in.Current > 0 && !in.Delivered
	if !in.Refusal.Passed() {
		d.Action = ActionHold
		return d
	}
	if in.Previous > 0 && (in.Delivered || in.DeliveredID) && in.DeliveryRecorded &&
		(in.PreviousDeleteAt != nil && !in.Now.Before(*in.PreviousDeleteAt) || in.liveExpiring()) {
		d.Action, d.Generation = ActionDeletePrevious, in.Previous
		return d
	}
	if s, ok := Successor(in.Credentials, in.Current); ok {
		d.Generation = s.Generation
		switch s.State.Phase {
		case korc.PhaseAvailable:
			d.Action = ActionSwitch
		case korc.PhaseFailed:
			switch r := in.replaceFailed(s); {
			case in.Desired > s.Generation:
				d.Action = ActionDeleteFailed
			case r != ReplaceNone:
				d.Action, d.Replace = ActionReplaceFailed, r
			default:
				d.Action = ActionContinueFailed
			}
		default:
			d.Action = ActionContinue
		}
		return d
	}
	t, gen := in.trigger()
	if t == TriggerNone {
		return d
	}
	d.Trigger = t
	if in.Previous > 0 || others(in.Credentials, in.Current) {
		d.Action = ActionDeferred
		return d
	}
	d.Action, d.Generation = ActionCreate, gen
	return d
}

// liveExpiring reports a live credential within GracePeriod of its Keystone
// expiry (now ≥ ExpiresAt − GracePeriod), the point from which the schedule
// wants its successor (Schedule.NextRotation). Decide then ends a running
// grace period of the previous generation instead of deferring the rotation:
// the delivered credential, which every up-to-date consumer holds, must not
// expire before its successor is delivered, and the order still never holds
// more than two credentials (docs/reference/keystoneapplicationcredential.md,
// "Rotation").
func (in Input) liveExpiring() bool {
	return in.ExpiresAt != nil && !in.Now.Before(in.ExpiresAt.Add(-in.Schedule.GracePeriod))
}

// replaceFailed is why the failed successor s is replaced, ReplaceNone
// when it is continued.
//
// Deviation from docs/reference/keystoneapplicationcredential.md, "Rotation":
// "A successor K-ORC reports a terminal error on (CredentialFailed) is
// continued as well until spec.credentialGeneration is raised above it". That
// stays the default, but continuing it for ever lets the live credential expire
// in Keystone with no successor, which breaks the rule that page states for the
// delivered Secret ("Delivered Secret contract": ("the superseded credential
// stays valid for the grace period after the switch, so the delivered
// credential is never invalid"); no credential a consumer holds is ever
// invalidated before its successor is delivered). So the failed successor is
// deleted, and the next generation created once it is gone (never more than two
// credentials), when
//
//   - ReplacePasswordRotated: K-ORC's failure is an authentication failure
//     (AuthenticationFailure) and the mint-cloud document has since been
//     rebuilt from a newer password generation than the one the successor
//     was created with; at once, since the cause is gone; or
//   - ReplaceLiveDying: the schedule is due (now ≥ NextRotation), or the
//     live credential has expired or is within GracePeriod of its expiry,
//     or it is gone from Keystone; once s has existed FailedRetryBackoff.
//     Not for the first credential (Current 0): there is no live one.
func (in Input) replaceFailed(s Credential) Replace {
	if AuthenticationFailure(s.State) && s.PasswordGeneration > 0 && in.PasswordGeneration > s.PasswordGeneration {
		return ReplacePasswordRotated
	}
	if in.Current == 0 || in.Now.Sub(s.Created) < FailedRetryBackoff {
		return ReplaceNone // no live credential to keep alive, or too soon
	}
	dying := !listed(in.Credentials, in.Current) || in.Rejected
	if in.ExpiresAt != nil && !in.Now.Before(in.ExpiresAt.Add(-in.Schedule.GracePeriod)) {
		dying = true
	}
	if n := in.NextRotation(); n != nil && !in.Now.Before(*n) {
		dying = true
	}
	if dying {
		return ReplaceLiveDying
	}
	return ReplaceNone
}

// others reports a listed credential other than generation current.
func others(creds []Credential, current int64) bool {
	for _, c := range creds {
		if c.Generation != current {
			return true
		}
	}
	return false
}

// TargetClusterResync is the longest an order on a target cluster waits
// between two passes: its events are not watched from the hub
// (docs/reference/keystoneapplicationcredential.md, "Conditions": "An order on
// a target cluster is reconciled again every 10 minutes at the latest").
const TargetClusterResync = 10 * time.Minute

// MinRequeue is the shortest requeue RequeueAfter returns for an instant
// that has already passed, so that a passed instant never reads as "no
// requeue" (0).
const MinRequeue = time.Second

// RequeueAfter is how long a converged order waits before its next pass: the
// time until the earliest of NextRotation, status.previousCredentialDeleteAt
// and status.credentialExpiresAt
// (docs/reference/keystoneapplicationcredential.md, "Conditions": "reconciled
// again at status.nextRotation, at status.previousCredentialDeleteAt"; the
// expiry is added for a schedule turned off, whose live credential is rotated
// when it expires). An instant already passed gives MinRequeue. For an order on
// a target cluster the result is at most TargetClusterResync, and
// TargetClusterResync when no instant is set; on the management cluster 0 (no
// timed requeue; watches fire) when none is set. A frozen order (closed gate)
// has no schedule: only the target-cluster resync applies.
func RequeueAfter(in Input, targetCluster bool) time.Duration {
	var at []*time.Time
	if in.Gate.Passed() {
		at = append(at, in.NextRotation(), in.PreviousDeleteAt, in.ExpiresAt)
	}
	var d time.Duration
	found := false
	for _, t := range at {
		if t == nil {
			continue
		}
		w := max(t.Sub(in.Now), MinRequeue)
		if !found || w < d {
			d, found = w, true
		}
	}
	if targetCluster && (!found || d > TargetClusterResync) {
		return TargetClusterResync
	}
	return d
}

// InputFrom fills the spec- and status-derived fields of an Input for o at
// now: Desired, Schedule, Current, ExpiresAt, LastRotation, Previous and
// PreviousDeleteAt. The caller sets Gate, Refusal, Credentials, SecretLost
// and Delivered from what it read.
func InputFrom(o *c5c3v1alpha1.KeystoneApplicationCredential, now time.Time) Input {
	st := &o.Status
	return Input{
		Now:              now,
		Desired:          DesiredGeneration(&o.Spec),
		Schedule:         ScheduleOf(&o.Spec),
		Current:          st.CredentialGeneration,
		ExpiresAt:        timeOf(st.CredentialExpiresAt),
		LastRotation:     timeOf(st.LastRotation),
		Previous:         st.PreviousCredentialGeneration,
		PreviousDeleteAt: timeOf(st.PreviousCredentialDeleteAt),
		DeliveryRecorded: st.SecretName != "",
	}
}

// timeOf unwraps t, keeping nil.
func timeOf(t *metav1.Time) *time.Time {
	if t == nil {
		return nil
	}
	return &t.Time
}
