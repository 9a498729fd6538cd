package applicationcredential

import (
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
)

// DefaultReadyResync is how often a converged order verifies, at most, that
// Keystone still accepts the delivered credential (ProbeDue): a credential
// deleted in Keystone out of band changes nothing the hub watches.
const DefaultReadyResync = 10 * time.Minute

// ProbeDue reports whether this pass authenticates with the delivered
// credential: the gates are open, generation Current is delivered (the
// Secret carries it), listed, not expired, no successor is under way and no
// grace period runs (a converged order), and it was last verified at
// lastProbe, at least every ago (a zero lastProbe is never due: the first
// pass that sees a credential only starts the clock, K-ORC has just made it
// Available).
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

// RejectedByKeystone reports whether err, from an application-credential
// token request, is Keystone's answer that the credential does not exist
// (any more) or does not authenticate: HTTP 401 or 404. A transport error
// or any other answer says nothing about the credential.
func RejectedByKeystone(err error) bool {
	return err != nil && (gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) || gophercloud.ResponseCodeIs(err, http.StatusNotFound))
}
