package orders

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// NotReadyCap is the longest NotReadyBackoff waits
// (docs/reference/keystoneproject.md, "Conditions").
const NotReadyCap = 2 * time.Minute

// NotReadyBackoff is the unprompted requeue of an order that has not been
// Ready for notReadyFor: half of notReadyFor, at least base and at most
// NotReadyCap (base when base is longer). An order that waits on its
// children, its references or its ControlPlane is woken by their changes
// (each kind's watches); the unprompted pass is a safety net for what no
// watch reports. Kept at base, it made one pass per order every base while
// Keystone took minutes: 2000 orders re-applied their K-ORC children 46
// times each in a 27-minute run (docs/performance.md, "Hub").
func NotReadyBackoff(base, notReadyFor time.Duration) time.Duration {
	return max(base, min(notReadyFor/2, NotReadyCap))
}

// NotReadyFor is how long an order whose status conditions are conds has
// not been Ready at now: since its Ready condition's lastTransitionTime when
// that condition is not True, since created when it has no Ready condition,
// and 0 when Ready is True (the order turns not Ready in this pass) or the
// time lies ahead of now (clock skew).
func NotReadyFor(conds []metav1.Condition, created, now time.Time) time.Duration {
	since := created
	if c := meta.FindStatusCondition(conds, c5c3v1alpha1.ConditionReady); c != nil {
		if c.Status == metav1.ConditionTrue {
			return 0
		}
		since = c.LastTransitionTime.Time
	}
	return max(now.Sub(since), 0)
}
