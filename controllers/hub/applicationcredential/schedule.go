package applicationcredential

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"time"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// Defaults the reconciler resolves itself: the kind has no webhook because a
// target cluster runs none (docs/reference/keystoneapplicationcredential.md,
// "Spec": "the reconciler resolves a zero credentialGeneration and an absent
// duration to their defaults itself"). They equal the CRD schema defaults.
const (
	// DefaultCredentialGeneration is spec.credentialGeneration when it is 0
	// (absent).
	DefaultCredentialGeneration int64 = 1
	// DefaultInterval is rotation.interval when rotation or its interval is
	// absent: 720h (30 days).
	DefaultInterval = 720 * time.Hour
	// DefaultGracePeriod is rotation.gracePeriod when rotation or its grace
	// period is absent: 24h.
	DefaultGracePeriod = 24 * time.Hour
)

// Schedule is the resolved rotation schedule of one order. Both durations
// are non-negative; Interval 0 means the schedule is off.
type Schedule struct {
	// Interval is the time between two scheduled rotations; 0 turns the
	// schedule off (no expiry, no nextRotation).
	Interval time.Duration
	// GracePeriod is how long a superseded credential stays in Keystone
	// after the delivered Secret switched.
	GracePeriod time.Duration
}

// ScheduleOf resolves spec.rotation: a nil block or an absent field takes
// DefaultInterval / DefaultGracePeriod; a present 0s interval is kept (the
// schedule is off). A negative duration, which the CRD rules reject, is
// read as 0. The CRD keeps the grace period shorter than a non-zero interval
// only when both are written; ScheduleOf does not re-check it.
func ScheduleOf(spec *c5c3v1alpha1.KeystoneApplicationCredentialSpec) Schedule {
	s := Schedule{Interval: DefaultInterval, GracePeriod: DefaultGracePeriod}
	if spec == nil || spec.Rotation == nil {
		return s
	}
	if d := spec.Rotation.Interval; d != nil {
		s.Interval = max(d.Duration, 0)
	}
	if d := spec.Rotation.GracePeriod; d != nil {
		s.GracePeriod = max(d.Duration, 0)
	}
	return s
}

// DesiredGeneration is spec.credentialGeneration, or
// DefaultCredentialGeneration (1) when it is 0 or negative: the lowest
// credential generation the order must hold.
func DesiredGeneration(spec *c5c3v1alpha1.KeystoneApplicationCredentialSpec) int64 {
	if spec == nil || spec.CredentialGeneration < DefaultCredentialGeneration {
		return DefaultCredentialGeneration
	}
	return spec.CredentialGeneration
}

// On reports a schedule that is on (Interval > 0).
func (s Schedule) On() bool { return s.Interval > 0 }

// MinExpiryHeadroom is the least time a credential stays valid in Keystone
// past the end of its own grace-period window (creation + Interval +
// GracePeriod): the headroom ExpiresAt adds is the grace period, but at least
// this. **orderhub:** the successor's creation and delivery come out of the
// headroom, and so does any stall of the rotation machinery around the
// scheduled rotation (an apiserver restart with the hub's and K-ORC's watches
// backing off, a Keystone restart); a headroom of one grace period lets a
// short schedule (interval 1m, grace 30s) run its delivered credential into
// its expiry during a 30 s apiserver outage (found by hack/soak,
// docs/soak.md). Five minutes is negligible beside the default 30 days
// the expiry bounds a credential the hub fails to delete to.
const MinExpiryHeadroom = 5 * time.Minute

// ExpiresAt is the Keystone expiry of a credential created at created:
// created + Interval + GracePeriod + max(GracePeriod, MinExpiryHeadroom) while
// the schedule is on, nil with it off
// (docs/reference/keystoneapplicationcredential.md, "Rotation": "A credential
// created with interval: 0s carries no expiry"). **orderhub:** that page's
// upstream rule is creation + interval + grace; the headroom is the time its
// successor's creation and delivery, and any outage around the scheduled
// rotation, take: the superseded credential must stay valid for the grace
// period after the delivered Secret switched ("Delivered Secret contract"),
// and the switch comes that long after the scheduled rotation (found by
// hack/soak, docs/soak.md). The CRD bounds (interval ≤ 87600h, grace <
// interval) keep the sum inside a Go duration.
func (s Schedule) ExpiresAt(created time.Time) *time.Time {
	if !s.On() {
		return nil
	}
	t := created.Add(s.Interval + s.GracePeriod + max(s.GracePeriod, MinExpiryHeadroom))
	return &t
}

// NextRotation is when the schedule rotates the delivered credential next:
// the earlier of lastRotation + Interval and expiresAt − GracePeriod, or
// lastRotation + Interval when the credential has no expiry; nil with the
// schedule off (docs/reference/keystoneapplicationcredential.md, "Rotation":
// "status.nextRotation is the earlier of status.lastRotation plus the interval
// and status.credentialExpiresAt minus the grace period: a lengthened interval
// never lets the delivered credential run into its expiry"; status.nextRotation
// "Absent with the schedule off").
func (s Schedule) NextRotation(lastRotation time.Time, expiresAt *time.Time) *time.Time {
	if !s.On() {
		return nil
	}
	t := lastRotation.Add(s.Interval)
	if expiresAt != nil {
		if e := expiresAt.Add(-s.GracePeriod); e.Before(t) {
			t = e
		}
	}
	return &t
}

// DeleteAt is when a credential superseded at switchedAt is deleted:
// switchedAt + GracePeriod (docs/reference/keystoneapplicationcredential.md,
// "Spec", rotation.gracePeriod: "How long the superseded credential stays in
// Keystone after the delivered Secret switched"). It applies with the schedule
// off as well.
func (s Schedule) DeleteAt(switchedAt time.Time) time.Time {
	return switchedAt.Add(s.GracePeriod)
}

// Expired reports a credential whose Keystone expiry has been reached
// (now ≥ expiresAt); a credential without expiry never expires.
func Expired(expiresAt *time.Time, now time.Time) bool {
	return expiresAt != nil && !now.Before(*expiresAt)
}

// Switch returns st after the order switched to the successor generation gen
// with Keystone id id and Keystone expiry expiresAt (nil: none) at now
// (docs/reference/keystoneapplicationcredential.md, "Rotation", step 2):
// credentialID/credentialGeneration name the successor, credentialExpiresAt is
// expiresAt, lastRotation is now, nextRotation is s.NextRotation(now,
// expiresAt); the superseded generation (if st held one) moves to
// previousCredentialID/Generation with previousCredentialDeleteAt =
// s.DeleteAt(now); secretName and secretKeys are cleared until the delivered
// Secret carries the successor. Conditions and observedGeneration are kept.
// Decide never switches while a previous generation is recorded, so none is
// overwritten.
func Switch(st c5c3v1alpha1.KeystoneApplicationCredentialStatus, s Schedule, now time.Time, gen int64, id string,
	expiresAt *time.Time,
) c5c3v1alpha1.KeystoneApplicationCredentialStatus {
	out := *st.DeepCopy()
	out.PreviousCredentialID, out.PreviousCredentialGeneration, out.PreviousCredentialDeleteAt = "", 0, nil
	if st.CredentialGeneration > 0 {
		out.PreviousCredentialID, out.PreviousCredentialGeneration = st.CredentialID, st.CredentialGeneration
		out.PreviousCredentialDeleteAt = metaTime(new(s.DeleteAt(now)))
	}
	out.CredentialID, out.CredentialGeneration = id, gen
	out.CredentialExpiresAt = metaTime(expiresAt)
	out.LastRotation = metaTime(&now)
	out.NextRotation = metaTime(s.NextRotation(now, expiresAt))
	out.SecretName, out.SecretKeys = "", nil
	return out
}

// WithNextRotation returns st with nextRotation recomputed from its
// lastRotation and credentialExpiresAt under schedule s (Schedule.NextRotation):
// nil with the schedule off or before the first credential
// (docs/reference/keystoneapplicationcredential.md, "Status": nextRotation
// "When the schedule rotates next. Absent with the schedule off."; "Rotation":
// the earlier of lastRotation plus the interval and credentialExpiresAt minus
// the grace period). The reconciler applies it on every pass behind an open
// shared gate, so a changed schedule is reported at once rather than at the
// next switch. Nothing else changes.
func WithNextRotation(st c5c3v1alpha1.KeystoneApplicationCredentialStatus, s Schedule,
) c5c3v1alpha1.KeystoneApplicationCredentialStatus {
	out := *st.DeepCopy()
	out.NextRotation = nil
	if st.CredentialGeneration > 0 && st.LastRotation != nil {
		out.NextRotation = metaTime(s.NextRotation(st.LastRotation.Time, timeOf(st.CredentialExpiresAt)))
	}
	return out
}

// MarkDelivered returns st after the delivered Secret secretName was seen
// carrying generation st.credentialGeneration at now: secretName and
// secretKeys are set (docs/reference/keystoneapplicationcredential.md,
// "Status": "once the Secret carries the current credential"). When this is the
// first pass that sees it (st.secretName was empty, as Switch leaves it) and a
// superseded generation is recorded, previousCredentialDeleteAt becomes
// max(previousCredentialDeleteAt, now + GracePeriod): the grace period runs
// from when the delivered Secret switched, not from the status switch
// (docs/reference/keystoneapplicationcredential.md, "Spec",
// rotation.gracePeriod: "How long the superseded credential stays in Keystone
// after the delivered Secret switched"; "Delivered Secret contract": "the
// superseded credential stays valid for the grace period after the switch"). A
// backup outage between the status switch and the delivery therefore never eats
// into the consumer's grace.
func MarkDelivered(st c5c3v1alpha1.KeystoneApplicationCredentialStatus, s Schedule, now time.Time, secretName string,
) c5c3v1alpha1.KeystoneApplicationCredentialStatus {
	out := *st.DeepCopy()
	if st.SecretName == "" && st.PreviousCredentialGeneration > 0 {
		at := s.DeleteAt(now)
		if st.PreviousCredentialDeleteAt == nil || st.PreviousCredentialDeleteAt.Time.Before(at) {
			out.PreviousCredentialDeleteAt = metaTime(&at)
		}
	}
	out.SecretName = secretName
	out.SecretKeys = append([]string(nil), DeliveredKeys...)
	return out
}

// metaTime wraps t, keeping nil.
func metaTime(t *time.Time) *metav1.Time {
	if t == nil {
		return nil
	}
	m := metav1.NewTime(*t)
	return &m
}
