package controlplane

import (
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// DefaultFailureConfirmation is how long a transient failure of a Ready
// plane must persist before AdminCredentialReady turns False (see
// HoldTransient).
const DefaultFailureConfirmation = 10 * time.Second

// Transient reports whether reason is a failure that a single check may see
// while the credential is fine: Keystone could not be reached or answered
// 5xx (EndpointUnreachable), or ESO briefly reported the plane's
// SecretStore not Ready (SecretStoreNotReady). A refused credential, a
// missing Secret, a TLS or catalog mismatch is definitive and reported at
// once.
func Transient(reason string) bool {
	return reason == c5c3v1alpha1.ReasonEndpointUnreachable || reason == c5c3v1alpha1.ReasonSecretStoreNotReady
}

// HoldTransient decides what AdminCredentialReady reports after one check
// (docs/reference/controlplane.md, "AdminCredentialReady"). On a plane
// whose current condition prev is True for this generation, a Transient
// failure want is held back — prev is reported unchanged — until it has
// persisted for window: since is when the failure was first seen (zero:
// not yet). It returns the condition to report, the first-failure time to
// remember (zero once nothing is held or the failure is reported), and
// whether it held, in which case the caller re-checks after window.
// Everything else (a success, a definitive failure, a plane not yet Ready, a
// new generation) is reported as want at once.
func HoldTransient(prev *metav1.Condition, want metav1.Condition, since, now time.Time, window time.Duration) (metav1.Condition, time.Time, bool) {
	if want.Status == metav1.ConditionTrue || !Transient(want.Reason) || prev == nil ||
		prev.Status != metav1.ConditionTrue || prev.ObservedGeneration != want.ObservedGeneration {
		return want, time.Time{}, false
	}
	if since.IsZero() {
		since = now
	}
	if now.Sub(since) < window {
		return *prev, since, true
	}
	return want, time.Time{}, false
}

// failureClock remembers, per plane, when a held transient failure was
// first seen. It lives in memory: after a restart the next failure starts
// a new window, which delays a report by at most one window.
type failureClock struct {
	mu    sync.Mutex
	since map[types.UID]time.Time
}

func (f *failureClock) get(uid types.UID) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.since[uid]
}

func (f *failureClock) set(uid types.UID, t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.IsZero() {
		delete(f.since, uid)
		return
	}
	if f.since == nil {
		f.since = map[types.UID]time.Time{}
	}
	f.since[uid] = t
}
