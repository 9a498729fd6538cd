package reconcile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Schedule says when the forced resync of a successful apply is due.
type Schedule interface {
	// Due is when the resync of the success at at is due; a pass before
	// it requeues at wake.
	Due(at time.Time, uid types.UID) (due, wake time.Time)
	// After is the requeue after a success at now.
	After(now time.Time, uid types.UID) time.Duration
}

// Policy is what differs between the controllers in the plan.
type Policy struct {
	Schedule Schedule
	// HoldFailures: a failed key waits for its Next before it is tried
	// again, whatever woke the resource (exponential backoff). Without it a
	// failed key is tried on every pass and Next only schedules one.
	HoldFailures bool
	// RequireReady: a desired state is skipped only while the status says
	// Ready=True for the current generation.
	RequireReady bool
}

// Plan says what one pass does with the backend.
type Plan struct {
	// Act: resolve errors are recorded, or the backend is called, now.
	Act bool
	// Resync: the desired state was applied successfully before.
	Resync bool
	// Wait: when not acting, requeue after this long.
	Wait time.Duration
}

// Decide plans a pass for the desired state key, given the record of the
// last pass (zero when none) and whether the status says Ready=True at
// the current generation. A new key acts at once; a failed key acts at once
// or, with HoldFailures, after its backoff; a succeeded key acts again when
// its resync is due. Pure.
func Decide(last Record, key string, now time.Time, ready bool, p Policy) Plan {
	resync := last.Applied == key
	switch {
	case key != last.Key:
		return Plan{Act: true, Resync: resync}
	case !last.OK && p.HoldFailures:
		if d := last.Next.Sub(now); d > 0 {
			return Plan{Wait: d}
		}
		return Plan{Act: true, Resync: resync}
	case !resync || (p.RequireReady && !ready):
		return Plan{Act: true, Resync: resync}
	}
	due, wake := p.Schedule.Due(last.At, last.UID)
	if !now.Before(due) {
		return Plan{Act: true, Resync: true}
	}
	return Plan{Wait: wake.Sub(now)}
}

// Hash is the hex SHA-256 of desired's JSON form (map keys sorted by
// encoding/json, so it is stable).
func Hash(desired any) (string, error) {
	b, err := json.Marshal(desired)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
