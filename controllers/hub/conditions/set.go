package conditions

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Set sets want on *conds, keeping LastTransitionTime where the status did
// not change (now otherwise), and reports the conditions whose status or
// reason changed (for events), in the order of want.
func Set(conds *[]metav1.Condition, want []metav1.Condition, now metav1.Time) (changed []metav1.Condition) {
	for _, w := range want {
		old := meta.FindStatusCondition(*conds, w.Type)
		if old == nil || old.Status != w.Status || old.Reason != w.Reason {
			changed = append(changed, w)
		}
		w.LastTransitionTime = now
		meta.SetStatusCondition(conds, w)
	}
	return changed
}
