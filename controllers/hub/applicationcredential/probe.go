package applicationcredential

import (
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
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

// RejectedByKeystone reports HTTP 401 or 404 from a credential token request;
// any other error says nothing about the credential.
func RejectedByKeystone(err error) bool {
	return err != nil && (gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) || gophercloud.ResponseCodeIs(err, http.StatusNotFound))
}
