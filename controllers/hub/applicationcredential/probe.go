package applicationcredential

import (
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
)

// DefaultReadyResync is the most often a converged order probes the delivered
// credential (ProbeDue): an out-of-band delete is not watched.
const DefaultReadyResync = 10 * time.Minute

// ProbeDue reports whether this pass authenticates with the delivered
// credential: a converged order, last probed at least every ago; a zero
// lastProbe only starts the clock.
func ProbeDue(in Input, lastProbe time.Time, every time.Duration) bool {
	if !in.Gate.Passed() || !in.Refusal.Passed() || in.Current == 0 || !in.Delivered || in.Previous > 0 || lastProbe.IsZero() {
		return false
	}
	if !listed(in.Credentials, in.Current) || Expired(in.ExpiresAt, in.Now) {
		return false
	}
	if _, ok := Successor(in.Credentials, in.Current); ok {
		return false
	}
	return !in.Now.Before(lastProbe.Add(every))
}

// IssuedAsSpecified reports whether Keystone issued the K-ORC
// ApplicationCredential o as its spec asks, so Keystone holds the hash of
// the secret K-ORC sent from spec.secretRef and switching to it confirms
// the credential without a token request: K-ORC reports the credential's
// Keystone expiresAt, equal to the second to spec's. false without an
// expiry (the schedule off) or before K-ORC reports one: a credential K-ORC
// adopted by name (one an earlier order of the same name left in Keystone)
// carries its own expiry and secret, and only a login tells
// (docs/reference/keystoneapplicationcredential.md, "What is detected how
// fast").
func IssuedAsSpecified(o *orcv1alpha1.ApplicationCredential) bool {
	if o == nil || o.Spec.Resource == nil || o.Spec.Resource.ExpiresAt == nil ||
		o.Status.Resource == nil || o.Status.Resource.ExpiresAt == nil {
		return false
	}
	return o.Spec.Resource.ExpiresAt.Truncate(time.Second).Equal(o.Status.Resource.ExpiresAt.Truncate(time.Second))
}
