package topology

import (
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

func findReady(st *rmqv1.TopologyStatus) *metav1.Condition {
	return meta.FindStatusCondition(st.Conditions, rmqv1.ConditionReady)
}

// equalStatus compares the kind-specific status of two versions (User's
// username and credentials); the shared part is compared by applyStatus.
func equalStatus(a, b runtime.Object) bool {
	ua, ok1 := a.(*rmqv1.User)
	ub, ok2 := b.(*rmqv1.User)
	if !ok1 || !ok2 {
		return true
	}
	return ua.Status.Username == ub.Status.Username && equality.Semantic.DeepEqual(ua.Status.Credentials, ub.Status.Credentials)
}

// readyAtGeneration reports whether obj says Ready=True for its current
// generation: declared by an earlier run of the controller.
func readyAtGeneration(obj object) bool {
	st := obj.TopologyStatus()
	c := findReady(st)
	return c != nil && c.Status == metav1.ConditionTrue && st.ObservedGeneration == obj.GetGeneration()
}
