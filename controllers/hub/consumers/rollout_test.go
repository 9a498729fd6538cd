package consumers

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestDeploymentRolledOut(t *testing.T) {
	t.Parallel()
	d := func(gen int64, replicas *int32, s appsv1.DeploymentStatus) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: gen}, Spec: appsv1.DeploymentSpec{Replicas: replicas}, Status: s}
	}
	done := appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2}
	tests := []struct {
		name string
		d    *appsv1.Deployment
		want bool
	}{
		{"complete", d(2, ptr.To[int32](2), done), true},
		{"spec not observed", d(3, ptr.To[int32](2), done), false},
		{"not all updated", d(2, ptr.To[int32](2), appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 1, AvailableReplicas: 2}), false},
		{"old pod still there", d(2, ptr.To[int32](2), appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 2, AvailableReplicas: 2}), false},
		{"not available", d(2, ptr.To[int32](2), appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 1}), false},
		{"old pod still terminating", d(2, ptr.To[int32](2), appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2, TerminatingReplicas: ptr.To[int32](1)}), false},
		{"none terminating", d(2, ptr.To[int32](2), appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2, TerminatingReplicas: ptr.To[int32](0)}), true},
		{"replicas default to 1", d(1, nil, appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}), true},
		{"scaled to zero", d(4, ptr.To[int32](0), appsv1.DeploymentStatus{ObservedGeneration: 4}), true},
	}
	for _, tc := range tests {
		if got := DeploymentRolledOut(tc.d); got != tc.want {
			t.Errorf("%s: DeploymentRolledOut = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestStatefulSetRolledOut(t *testing.T) {
	t.Parallel()
	s := func(gen int64, st appsv1.StatefulSetStatus) *appsv1.StatefulSet {
		return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Generation: gen}, Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](3)}, Status: st}
	}
	done := appsv1.StatefulSetStatus{ObservedGeneration: 5, UpdatedReplicas: 3, AvailableReplicas: 3, CurrentRevision: "r2", UpdateRevision: "r2"}
	tests := []struct {
		name string
		s    *appsv1.StatefulSet
		want bool
	}{
		{"complete", s(5, done), true},
		{"spec not observed", s(6, done), false},
		{"revision not current", s(5, appsv1.StatefulSetStatus{ObservedGeneration: 5, UpdatedReplicas: 3, AvailableReplicas: 3, CurrentRevision: "r1", UpdateRevision: "r2"}), false},
		{"not all updated", s(5, appsv1.StatefulSetStatus{ObservedGeneration: 5, UpdatedReplicas: 2, AvailableReplicas: 3, CurrentRevision: "r2", UpdateRevision: "r2"}), false},
		{"not available", s(5, appsv1.StatefulSetStatus{ObservedGeneration: 5, UpdatedReplicas: 3, AvailableReplicas: 2, CurrentRevision: "r2", UpdateRevision: "r2"}), false},
	}
	for _, tc := range tests {
		if got := StatefulSetRolledOut(tc.s); got != tc.want {
			t.Errorf("%s: StatefulSetRolledOut = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDaemonSetRolledOut(t *testing.T) {
	t.Parallel()
	d := func(gen int64, st appsv1.DaemonSetStatus) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Generation: gen}, Status: st}
	}
	tests := []struct {
		name string
		d    *appsv1.DaemonSet
		want bool
	}{
		{"complete", d(2, appsv1.DaemonSetStatus{ObservedGeneration: 2, DesiredNumberScheduled: 3, UpdatedNumberScheduled: 3, NumberAvailable: 3}), true},
		{"spec not observed", d(3, appsv1.DaemonSetStatus{ObservedGeneration: 2, DesiredNumberScheduled: 3, UpdatedNumberScheduled: 3, NumberAvailable: 3}), false},
		{"not all updated", d(2, appsv1.DaemonSetStatus{ObservedGeneration: 2, DesiredNumberScheduled: 3, UpdatedNumberScheduled: 2, NumberAvailable: 3}), false},
		{"not available", d(2, appsv1.DaemonSetStatus{ObservedGeneration: 2, DesiredNumberScheduled: 3, UpdatedNumberScheduled: 3, NumberAvailable: 2}), false},
		{"no nodes", d(2, appsv1.DaemonSetStatus{ObservedGeneration: 2}), true},
	}
	for _, tc := range tests {
		if got := DaemonSetRolledOut(tc.d); got != tc.want {
			t.Errorf("%s: DaemonSetRolledOut = %v, want %v", tc.name, got, tc.want)
		}
	}
}
