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

// NotReadyBackoff is the unprompted requeue of an order not Ready for
// notReadyFor: half of it, within [base, NotReadyCap]; watches wake the order
// before that (docs/performance.md, "Hub: 500 application credentials").
func NotReadyBackoff(base, notReadyFor time.Duration) time.Duration {
	return max(base, min(notReadyFor/2, NotReadyCap))
}

// NotReadyFor is how long conds have not been Ready at now: since Ready's
// lastTransitionTime, or created without a Ready condition; 0 when Ready or in
// the future.
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
