package consumers

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// TestChanged: an order wakes for what its consumers step reads, not for
// every status update of a rollout in progress.
func TestChanged(t *testing.T) {
	t.Parallel()
	two := int32(2)
	base := func() *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: 2, Annotations: map[string]string{"other": "a"}},
			Spec: appsv1.DeploymentSpec{Replicas: &two, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Volumes: []corev1.Volume{{
				Name: "c", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "u-credentials"}}}}}}},
			Status: appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 1, AvailableReplicas: 1}}
	}
	for _, tc := range []struct {
		name   string
		change func(d *appsv1.Deployment)
		want   bool
	}{
		{"rollout progress only", func(d *appsv1.Deployment) { d.Status.ReadyReplicas = 2 }, false},
		{"another annotation", func(d *appsv1.Deployment) { d.Annotations["other"] = "b" }, false},
		{"rollout completes", func(d *appsv1.Deployment) { d.Status.UpdatedReplicas, d.Status.AvailableReplicas = 2, 2 }, true},
		{"opt-in", func(d *appsv1.Deployment) { d.Annotations[c5c3v1alpha1.AnnotationRolloutOnCredentialChange] = "true" }, true},
		{"stamp", func(d *appsv1.Deployment) {
			d.Spec.Template.Annotations = map[string]string{StampKey("u-credentials"): "KeystoneUser/u=3"}
		}, true},
		{"another Secret read", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Volumes[0].Secret.SecretName = "v-credentials" }, true},
		{"generation", func(d *appsv1.Deployment) { d.Generation = 3 }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			old, cur := base(), base()
			tc.change(cur)
			if got := Changed.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: cur}); got != tc.want {
				t.Errorf("Changed = %v, want %v", got, tc.want)
			}
		})
	}
	if !Changed.Create(event.CreateEvent{Object: base()}) || !Changed.Delete(event.DeleteEvent{Object: base()}) {
		t.Error("a created or deleted workload does not wake its orders")
	}
}
