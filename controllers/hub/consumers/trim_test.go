package consumers

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// TestTrimKeepsWhatSyncReads: Trim drops images, resources and kubectl's
// last-applied copy, and keeps the opt-in, the stamps, the replicas and the
// rollout status.
func TestTrimKeepsWhatSyncReads(t *testing.T) {
	t.Parallel()
	two := int32(2)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Generation: 3, Annotations: map[string]string{
			c5c3v1alpha1.AnnotationRolloutOnCredentialChange: "true", "kubectl.kubernetes.io/last-applied-configuration": `{"big":"copy"}`}},
		Spec: appsv1.DeploymentSpec{Replicas: &two, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{StampKey("s"): "KeystoneUser/u=2", "junk": "x"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry/app:1",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2},
	}
	if _, err := Trim(d); err != nil {
		t.Fatal(err)
	}
	c := d.Spec.Template.Spec.Containers[0]
	if c.Image != "" || c.Resources.Limits != nil || len(d.Annotations) != 1 || len(d.Spec.Template.Annotations) != 1 {
		t.Errorf("not trimmed: image %q, limits %v, annotations %v, template annotations %v",
			c.Image, c.Resources.Limits, d.Annotations, d.Spec.Template.Annotations)
	}
	if !OptedIn(d.Annotations, nil) || d.Spec.Template.Annotations[StampKey("s")] != "KeystoneUser/u=2" || !DeploymentRolledOut(d) {
		t.Errorf("trimmed what Sync reads: %+v", d)
	}
	cm := &corev1.ConfigMap{Data: map[string]string{"k": "v"}}
	if out, _ := Trim(cm); out.(*corev1.ConfigMap).Data["k"] != "v" {
		t.Error("another kind was changed")
	}
}
