package orders

import (
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// DefaultRotationsPerHour is the rotation budget of an assigned namespace
// whose assignment sets no rotationsPerHour (docs/reference/controlplane.md,
// "Rotation budget").
const DefaultRotationsPerHour = 60

// RotationBudget bounds the rotations that tenant orders start, per assigned
// namespace (cluster and namespace): a token bucket of rotationsPerHour
// tokens refilled evenly over an hour (golang.org/x/time/rate, rather than a
// counter of our own). Orders outside an assignment are never bounded. The
// buckets live in memory: a hub restart refills them. Safe for concurrent use;
// the zero value is not usable, use NewRotationBudget.
type RotationBudget struct {
	mu      sync.Mutex
	buckets map[budgetKey]*bucket
}

type budgetKey struct{ cluster, namespace string }

type bucket struct {
	perHour int32
	limiter *rate.Limiter
}

// NewRotationBudget returns an empty budget shared by every order kind of a hub.
func NewRotationBudget() *RotationBudget {
	return &RotationBudget{buckets: map[budgetKey]*bucket{}}
}

// BudgetHold is a rotation the budget withheld: Wait is how long (whole seconds) until a
// token is free, PerHour the namespace's budget.
type BudgetHold struct {
	Wait    time.Duration
	PerHour int32
}

// Held reports a withheld rotation.
func (h BudgetHold) Held() bool { return h.Wait > 0 }

// Message is the condition text for a withheld rotation of what (for example
// "the rotation to password generation 3"), at now.
func (h BudgetHold) Message(what string, now time.Time) string {
	return fmt.Sprintf("%s waits for this namespace's rotation budget (%d per hour, spec.namespaceAssignments[].rotationsPerHour "+
		"on the ControlPlane) until about %s; it starts then by itself. Raise the budget on the ControlPlane, or rotate less often",
		what, h.PerHour, now.Add(h.Wait).UTC().Format(time.RFC3339))
}

// PerHour is a's rotation budget: rotationsPerHour, else DefaultRotationsPerHour.
func PerHour(a *c5c3v1alpha1.NamespaceAssignment) int32 {
	if a != nil && a.RotationsPerHour != nil && *a.RotationsPerHour > 0 {
		return *a.RotationsPerHour
	}
	return DefaultRotationsPerHour
}

// Take spends one rotation of o's namespace at now when o is in an assignment
// of cp; it returns a zero BudgetHold when the rotation may start (always for
// an order outside every assignment, or a nil b) and the wait otherwise,
// spending nothing. A changed rotationsPerHour keeps what was spent
// (resized).
func (b *RotationBudget) Take(cp *c5c3v1alpha1.ControlPlane, o Order, now time.Time) BudgetHold {
	a, ok := Assigned(cp, o.Cluster, o.Namespace)
	if b == nil || !ok {
		return BudgetHold{}
	}
	perHour := PerHour(a)
	b.mu.Lock()
	defer b.mu.Unlock()
	k := budgetKey{o.Cluster, o.Namespace}
	bk := b.buckets[k]
	switch {
	case bk == nil:
		bk = &bucket{perHour: perHour, limiter: newLimiter(perHour)}
		b.buckets[k] = bk
	case bk.perHour != perHour:
		bk = bk.resized(perHour, now)
		b.buckets[k] = bk
	}
	r := bk.limiter.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		// Whole seconds, rounded up: the limiter's float arithmetic is off by nanoseconds.
		return BudgetHold{Wait: (d + time.Second - 1).Truncate(time.Second), PerHour: perHour}
	}
	return BudgetHold{}
}

// newLimiter is a full bucket of perHour tokens refilled evenly over an hour.
func newLimiter(perHour int32) *rate.Limiter {
	return rate.NewLimiter(rate.Limit(float64(perHour)/time.Hour.Seconds()), int(perHour))
}

// resized is bk under a new budget at now, keeping what was spent
// (docs/reference/controlplane.md, "Rotation budget"): a raise adds the
// difference to the tokens left, a cut caps them at the new budget; a
// fraction of a token left is dropped (rate.Limiter takes whole tokens).
func (bk *bucket) resized(perHour int32, now time.Time) *bucket {
	left := bk.limiter.TokensAt(now) + float64(max(perHour-bk.perHour, 0))
	l := newLimiter(perHour)
	if spent := int(perHour) - min(int(left), int(perHour)); spent > 0 {
		l.ReserveN(now, spent)
	}
	return &bucket{perHour: perHour, limiter: l}
}
