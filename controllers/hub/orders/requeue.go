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

// CapTarget bounds the requeue d of an order on a target cluster (onTarget)
// by RequeueTarget: its children's watches cannot wake it, so it polls.
// d == 0 (no requeue) becomes RequeueTarget there. Off target d is kept.
func CapTarget(d time.Duration, onTarget bool) time.Duration {
	if onTarget && (d == 0 || d > RequeueTarget) {
		return RequeueTarget
	}
	return d
}
