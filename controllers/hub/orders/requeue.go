package orders

import "time"

// RequeueAfter is the delay before an order's next unprompted pass:
// readyResync for a Ready order, notReady otherwise, capped by CapTarget.
func RequeueAfter(ready, onTarget bool, readyResync, notReady time.Duration) time.Duration {
	d := notReady
	if ready {
		d = readyResync
	}
	return CapTarget(d, onTarget)
}

// CapTarget bounds d by RequeueTarget on a target cluster, where watches cannot
// wake the order; 0 becomes RequeueTarget there.
func CapTarget(d time.Duration, onTarget bool) time.Duration {
	if onTarget && (d == 0 || d > RequeueTarget) {
		return RequeueTarget
	}
	return d
}
