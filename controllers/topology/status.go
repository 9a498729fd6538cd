package topology

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

func findReady(st *rmqv1.TopologyStatus) *metav1.Condition {
	return meta.FindStatusCondition(st.Conditions, rmqv1.ConditionReady)
}
