package consumers

import (
	"fmt"
	"time"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// EventRevokedBeforeRollout (Warning): the grace period's upper bound revoked
// a superseded credential while consumers named in the message were still on
// an older generation (docs/reference/consumers.md).
const EventRevokedBeforeRollout = "SupersededRevokedBeforeRollout"

// Superseded is what ReleaseSuperseded weighs for one superseded credential.
type Superseded struct {
	// Statuses is status.consumers; Want the current generation's StampValue.
	Statuses []c5c3v1alpha1.ConsumerStatus
	Want     string
	// Ack is the delivered Secret's AnnotationAcknowledged, "" when absent.
	Ack string
	// Now and Bound: the grace period's upper bound (the revoke time of today).
	Now, Bound time.Time
}

// Release is ReleaseSuperseded's answer.
type Release struct {
	// Revoke: the superseded credential may be revoked now.
	Revoke bool
	// Early: Revoke before Bound, every waited-for consumer is done.
	Early bool
	// Waiting names the waited-for consumers not on Want yet: "<Kind>/<name>"
	// of opted-in workloads, "acknowledgement <value>" for the Secret's.
	Waiting []string
}

// ReleaseSuperseded is the revoke decision (docs/reference/consumers.md,
// "Revocation waits for the consumers"): revoke when every opted-in workload
// rolled out on Want and the acknowledgement, if any, names
// Want — before Bound only if at least one consumer is waited for, none reads
// the Secret without the opt-in and the list is complete — else at Bound,
// naming the consumers still waited for.
func ReleaseSuperseded(in Superseded) Release {
	var r Release
	optedIn, notOptedIn := false, false
	for _, s := range in.Statuses {
		if s.State == c5c3v1alpha1.ConsumerNotOptedIn {
			notOptedIn = true
			continue
		}
		optedIn = true
		if s.Stamp != in.Want || s.State != c5c3v1alpha1.ConsumerRolledOut {
			r.Waiting = append(r.Waiting, s.Kind+"/"+s.Name)
		}
	}
	if in.Ack != "" && in.Ack != in.Want {
		r.Waiting = append(r.Waiting, fmt.Sprintf("acknowledgement %q", Shown(in.Ack)))
	}
	complete := len(in.Statuses) < c5c3v1alpha1.MaxConsumers
	if !in.Now.Before(in.Bound) {
		r.Revoke = true
		return r
	}
	r.Early = len(r.Waiting) == 0 && (optedIn || in.Ack != "") && !notOptedIn && complete
	r.Revoke = r.Early
	return r
}
