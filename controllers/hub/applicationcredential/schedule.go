package applicationcredential

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"time"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// Defaults the reconciler resolves itself, equal to the CRD schema's: target
// clusters run no webhook (docs/reference/keystoneapplicationcredential.md, "Spec").
const (
	DefaultCredentialGeneration int64 = 1
	DefaultInterval                   = 720 * time.Hour
	DefaultGracePeriod                = 24 * time.Hour
)

// Schedule is an order's resolved rotation schedule; Interval 0 is off.
type Schedule struct {
	Interval time.Duration
	// GracePeriod is how long a superseded credential stays after the switch.
	GracePeriod time.Duration
}

// ScheduleOf resolves spec.rotation with the defaults; a present 0s interval
// is kept and a negative duration reads as 0.
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

// DesiredGeneration is spec.credentialGeneration, at least
// DefaultCredentialGeneration.
func DesiredGeneration(spec *c5c3v1alpha1.KeystoneApplicationCredentialSpec) int64 {
	if spec == nil || spec.CredentialGeneration < DefaultCredentialGeneration {
		return DefaultCredentialGeneration
	}
	return spec.CredentialGeneration
}

func (s Schedule) On() bool { return s.Interval > 0 }

// MinExpiryHeadroom is the least validity past creation + Interval +
// GracePeriod, covering the successor's delivery and short outages around a
// rotation (docs/soak.md).
const MinExpiryHeadroom = 5 * time.Minute

// ExpiresAt is created + Interval + GracePeriod + max(GracePeriod,
// MinExpiryHeadroom), nil with the schedule off
// (docs/reference/keystoneapplicationcredential.md, "Rotation"; the headroom is
// orderhub's addition).
func (s Schedule) ExpiresAt(created time.Time) *time.Time {
	if !s.On() {
		return nil
	}
	t := created.Add(s.Interval + s.GracePeriod + max(s.GracePeriod, MinExpiryHeadroom))
	return &t
}

// NextRotation is the earlier of lastRotation + Interval and expiresAt −
// GracePeriod; nil with the schedule off
// (docs/reference/keystoneapplicationcredential.md, "Rotation").
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

// DeleteAt is switchedAt + GracePeriod, also with the schedule off
// (docs/reference/keystoneapplicationcredential.md, "Spec").
func (s Schedule) DeleteAt(switchedAt time.Time) time.Time {
	return switchedAt.Add(s.GracePeriod)
}

// Expired reports now ≥ expiresAt; nil never expires.
func Expired(expiresAt *time.Time, now time.Time) bool {
	return expiresAt != nil && !now.Before(*expiresAt)
}

// Switch returns st switched to successor gen with id and expiresAt at now
// (docs/reference/keystoneapplicationcredential.md, "Rotation", step 2): the
// superseded generation becomes previous* and secretName/secretKeys clear until
// delivery. Callers MUST NOT switch while a previous generation is recorded.
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

// WithNextRotation returns st with nextRotation recomputed under s
// (docs/reference/keystoneapplicationcredential.md, "Status"); nothing else changes.
func WithNextRotation(st c5c3v1alpha1.KeystoneApplicationCredentialStatus, s Schedule,
) c5c3v1alpha1.KeystoneApplicationCredentialStatus {
	out := *st.DeepCopy()
	out.NextRotation = nil
	if st.CredentialGeneration > 0 && st.LastRotation != nil {
		out.NextRotation = metaTime(s.NextRotation(st.LastRotation.Time, timeOf(st.CredentialExpiresAt)))
	}
	return out
}

// MarkDelivered returns st with secretName and secretKeys set once the
// delivered Secret carries the current generation
// (docs/reference/keystoneapplicationcredential.md, "Status"). On the first
// such pass previousCredentialDeleteAt becomes at least now + GracePeriod: the
// grace runs from the delivery
// (docs/reference/keystoneapplicationcredential.md, "Delivered Secret
// contract").
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

func metaTime(t *time.Time) *metav1.Time {
	if t == nil {
		return nil
	}
	m := metav1.NewTime(*t)
	return &m
}
