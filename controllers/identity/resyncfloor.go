package identity

import "time"

// MinResync is the floor of the forced resync period and of the interval
// between two probes of an unchanged password (docs/identity.md, "Reconcile
// loop" and "Users and passwords"). Every resync re-reads every object from
// Keystone and every probe is a login, so a shorter period only costs load:
// changes are seen through watches, not through the resync.
const MinResync = 5 * time.Minute

// FloorResync returns the resync period the controller runs with for the
// requested one: MinResync when requested is shorter (raised is then true),
// requested otherwise.
func FloorResync(requested time.Duration) (period time.Duration, raised bool) {
	if requested < MinResync {
		return MinResync, true
	}
	return requested, false
}
