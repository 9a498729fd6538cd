package applicationcredential

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"

	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/korc"
)

// Action is the one Keystone-side step a pass takes (Decide).
type Action string

const (
	// ActionHold: a gate is closed or refuses; nothing changes and the schedule
	// pauses (docs/reference/keystoneapplicationcredential.md, "Consent").
	ActionHold Action = "Hold"
	ActionNone Action = "None"
	// ActionCreate: create generation Decision.Generation.
	ActionCreate Action = "Create"
	// ActionContinue: a successor is not Available yet; re-apply it, never
	// restart (docs/reference/keystoneapplicationcredential.md, "Rotation").
	ActionContinue Action = "Continue"
	// ActionSwitch: the successor is Available; switch the status to it.
	ActionSwitch Action = "Switch"
	// ActionContinueFailed: the successor failed terminally and is kept
	// (docs/reference/keystoneapplicationcredential.md, "Rotation").
	ActionContinueFailed Action = "ContinueFailed"
	// ActionDeleteFailed: spec.credentialGeneration was raised above the failed
	// successor; delete it.
	ActionDeleteFailed Action = "DeleteFailed"
	// ActionReplaceFailed: delete the failed successor anyway (Decision.Replace).
	ActionReplaceFailed Action = "ReplaceFailed"
	// ActionDeletePrevious: the grace period ended; delete the previous generation
	// (docs/reference/keystoneapplicationcredential.md, "Rotation").
	ActionDeletePrevious Action = "DeletePrevious"
	// ActionDeferred: a trigger holds but a second credential exists; no rotation
	// starts (docs/reference/keystoneapplicationcredential.md, "Rotation").
	ActionDeferred Action = "Deferred"
)

type Trigger string

const (
	TriggerNone Trigger = ""
	// TriggerInitial: status.credentialGeneration is 0.
	TriggerInitial Trigger = "Initial"
	// TriggerGeneration: spec.credentialGeneration is above the status's.
	TriggerGeneration Trigger = "GenerationRaised"
	// TriggerScope: spec.roles or spec.accessRules differ from the delivered
	// generation's (docs/reference/keystoneapplicationcredential.md, "Scope").
	TriggerScope Trigger = "ScopeChanged"
	// TriggerCredentialGone: the delivered generation's K-ORC child is gone;
	// treated as expired.
	TriggerCredentialGone Trigger = "CredentialGone"
	// TriggerRejected: Keystone answered 401/404 with the delivered credential.
	TriggerRejected Trigger = "CredentialRejected"
	// TriggerExpired: now ≥ status.credentialExpiresAt, also with the schedule off.
	TriggerExpired Trigger = "Expired"
	// TriggerSecretLost: the delivered generation's secret-v<N> is gone
	// (docs/reference/keystoneapplicationcredential.md, "Rotation").
	TriggerSecretLost Trigger = "SecretLost"
	TriggerSchedule   Trigger = "Scheduled"
)

type Replace string

const (
	ReplaceNone Replace = ""
	// ReplaceLiveDying: the live credential is due, expiring or gone.
	ReplaceLiveDying Replace = "LiveCredentialDue"
	// ReplacePasswordRotated: K-ORC failed to authenticate and the user's password
	// has since rotated.
	ReplacePasswordRotated Replace = "UserPasswordRotated"
)

// FailedRetryBackoff is the minimum age of a failed successor replaced for
// ReplaceLiveDying, so a persistent cause retries at this pace.
const FailedRetryBackoff = 30 * time.Second

// Credential is one listed credential-v<N> K-ORC ApplicationCredential child.
type Credential struct {
	Generation int64
	State      korc.State
	// Deleting: it still counts until it is gone.
	Deleting bool
	Created  time.Time
	// PasswordGeneration is the user's password generation the child was minted
	// with; 0 when unknown.
	PasswordGeneration int64
}

// Input is everything Decide reads. Times are absolute; nil means absent.
type Input struct {
	Now  time.Time
	Gate conditions.Gate
	// HeldUntil is when the rotation budget frees the rotation it withheld
	// (orders.RotationBudget); nil when none is withheld.
	HeldUntil *time.Time
	// Refusal is the first refusing reference gate.
	Refusal  conditions.Gate
	Desired  int64
	Schedule Schedule
	// Current is status.credentialGeneration (0 before the first switch).
	Current      int64
	ExpiresAt    *time.Time
	LastRotation *time.Time
	// Previous is status.previousCredentialGeneration (0 outside a grace period).
	Previous         int64
	PreviousDeleteAt *time.Time
	Credentials      []Credential
	// SecretLost: secret-v<Current> is gone.
	SecretLost bool
	// Delivered: the owned delivered Secret carries generation Current.
	Delivered bool
	// DeliveredID: the owned delivered Secret's application_credential_id is
	// status.credentialID, even when secret-v<Current> is lost.
	DeliveredID bool
	// DeliveryRecorded: status.secretName is set, so PreviousDeleteAt counts from
	// the switch (MarkDelivered); until then nothing superseded is deleted.
	DeliveryRecorded bool
	// PasswordGeneration is the user's password generation used this pass.
	PasswordGeneration int64
	// Rejected: Keystone rejected the delivered generation (atrest.LoginRefused).
	Rejected bool
	// ScopeChanged: the delivered generation's K-ORC child has another scope
	// than the spec asks for (ScopeDiffers).
	ScopeChanged bool
	// ConsumersReleased: every consumer waited for is on the current
	// generation, so the superseded one goes before PreviousDeleteAt
	// (consumers.ReleaseSuperseded, docs/reference/consumers.md).
	ConsumersReleased bool
}

type Decision struct {
	Action Action
	// Generation is what Action works on; 0 for Hold, None and Deferred.
	Generation int64
	// Trigger is set for ActionCreate and ActionDeferred.
	Trigger Trigger
	// Replace is set for ActionReplaceFailed.
	Replace Replace
	// Redeliver: the delivered Secret lacks the current generation
	// (docs/reference/keystoneapplicationcredential.md, "Delivered Secret contract").
	Redeliver bool
}

// Successor returns the highest listed, not deleting credential above current.
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

func listed(creds []Credential, gen int64) bool {
	for _, c := range creds {
		if c.Generation == gen {
			return true
		}
	}
	return false
}

// NextRotation is the value status.nextRotation should carry; nil with the
// schedule off or before the first credential.
func (in Input) NextRotation() *time.Time {
	if in.Current == 0 || in.LastRotation == nil {
		return nil
	}
	return in.Schedule.NextRotation(*in.LastRotation, in.ExpiresAt)
}

// trigger is the first rotation trigger that holds and the generation it
// creates (docs/reference/keystoneapplicationcredential.md, "Rotation").
func (in Input) trigger() (Trigger, int64) {
	next := max(in.Current+1, in.Desired)
	switch {
	case in.Current == 0:
		return TriggerInitial, in.Desired
	case in.Desired > in.Current:
		return TriggerGeneration, next
	case in.ScopeChanged:
		return TriggerScope, next
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

// Budgeted reports whether a credential of trigger t is spent from the
// namespace's rotation budget: the ones a tenant can cause at will (the
// first credential of an order, as deleting and re-creating an order makes
// another), never the replacement of a gone, rejected, expired or lost one
// (docs/reference/controlplane.md, "Rotation budget").
func Budgeted(t Trigger) bool {
	return t == TriggerInitial || t == TriggerGeneration || t == TriggerScope || t == TriggerSchedule
}

// Decide chooses the pass's action, first match wins
// (docs/reference/keystoneapplicationcredential.md, "Rotation"); Redeliver is
// set independently once the shared gate is open.
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
		(in.PreviousDeleteAt != nil && !in.Now.Before(*in.PreviousDeleteAt) || in.ConsumersReleased || in.liveExpiring()) {
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

// liveExpiring reports now ≥ ExpiresAt − GracePeriod (the grace period ends early).
func (in Input) liveExpiring() bool {
	return in.ExpiresAt != nil && !in.Now.Before(in.ExpiresAt.Add(-in.Schedule.GracePeriod))
}

// replaceFailed is why the failed successor s is replaced, ReplaceNone when it
// is continued: so the delivered credential never expires without a successor
// (docs/reference/keystoneapplicationcredential.md, "Rotation").
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

func others(creds []Credential, current int64) bool {
	for _, c := range creds {
		if c.Generation != current {
			return true
		}
	}
	return false
}

// TargetClusterResync is the longest an order on a target cluster waits
// between passes (docs/reference/keystoneapplicationcredential.md, "Conditions").
const TargetClusterResync = 10 * time.Minute

// MinRequeue is RequeueAfter's result for an instant already passed.
const MinRequeue = time.Second

// RequeueAfter is the wait until the earliest scheduled instant, at most
// TargetClusterResync on a target cluster, 0 with none set or a frozen order
// (docs/reference/keystoneapplicationcredential.md, "Conditions").
func RequeueAfter(in Input, targetCluster bool) time.Duration {
	var at []*time.Time
	if in.Gate.Passed() {
		next := in.NextRotation()
		if next != nil && in.HeldUntil != nil && next.Before(*in.HeldUntil) {
			next = nil // the due rotation waits for the budget
		}
		at = append(at, next, in.PreviousDeleteAt, in.ExpiresAt, in.HeldUntil)
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

// InputFrom fills the spec- and status-derived fields of an Input for o;
// the caller sets what it read.
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

func timeOf(t *metav1.Time) *time.Time {
	if t == nil {
		return nil
	}
	return &t.Time
}
