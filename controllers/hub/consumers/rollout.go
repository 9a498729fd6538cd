package consumers

import appsv1 "k8s.io/api/apps/v1"

// replicasOf is spec.replicas, defaulted to 1 as the API server does.
func replicasOf(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// DeploymentRolledOut reports a complete rollout the way `kubectl rollout
// status` does: the controller saw the current spec, and every desired
// replica is updated and available with no old one left
// (https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#complete-deployment);
// and, stricter than kubectl, no pod is still terminating
// (status.terminatingReplicas, KEP-3973; absent where the feature is off):
// a terminating old pod may still use the superseded credential.
func DeploymentRolledOut(d *appsv1.Deployment) bool {
	n, s := replicasOf(d.Spec.Replicas), d.Status
	return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == n && s.Replicas == n && s.AvailableReplicas == n &&
		(s.TerminatingReplicas == nil || *s.TerminatingReplicas == 0)
}

// StatefulSetRolledOut: the controller saw the current spec, every replica is
// updated and available, and the current revision is the update revision. A
// StatefulSet with updateStrategy OnDelete completes only once its pods are
// deleted.
func StatefulSetRolledOut(s *appsv1.StatefulSet) bool {
	n, st := replicasOf(s.Spec.Replicas), s.Status
	return st.ObservedGeneration >= s.Generation && st.UpdatedReplicas == n && st.AvailableReplicas == n &&
		st.CurrentRevision == st.UpdateRevision
}

// DaemonSetRolledOut: the controller saw the current spec and every node that
// should run a pod runs an updated, available one.
func DaemonSetRolledOut(d *appsv1.DaemonSet) bool {
	s := d.Status
	return s.ObservedGeneration >= d.Generation && s.UpdatedNumberScheduled == s.DesiredNumberScheduled &&
		s.NumberAvailable == s.DesiredNumberScheduled
}
