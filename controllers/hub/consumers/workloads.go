package consumers

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The workload kinds the hub rolls.
const (
	KindDeployment  = "Deployment"
	KindStatefulSet = "StatefulSet"
	KindDaemonSet   = "DaemonSet"
)

// workload is one apps/v1 object with its pod template and rollout verdict.
type workload struct {
	kind      string
	obj       client.Object
	template  *corev1.PodTemplateSpec
	rolledOut bool
}

// workloadOf views obj, a Deployment, StatefulSet or DaemonSet; ok is false
// for any other type.
func workloadOf(obj client.Object) (workload, bool) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return workload{KindDeployment, o, &o.Spec.Template, DeploymentRolledOut(o)}, true
	case *appsv1.StatefulSet:
		return workload{KindStatefulSet, o, &o.Spec.Template, StatefulSetRolledOut(o)}, true
	case *appsv1.DaemonSet:
		return workload{KindDaemonSet, o, &o.Spec.Template, DaemonSetRolledOut(o)}, true
	}
	return workload{}, false
}
