package consumers

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestSecretsOf(t *testing.T) {
	t.Parallel()
	ref := func(n string) corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: n} }
	envKey := func(n string) []corev1.EnvVar {
		return []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: ref(n), Key: "k"}}}}
	}
	envFrom := func(n string) []corev1.EnvFromSource {
		return []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: ref(n)}}}
	}
	tests := []struct {
		name string
		spec corev1.PodSpec
		want []string
	}{
		{"nothing", corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}, nil},
		{"secret volume", corev1.PodSpec{Volumes: []corev1.Volume{{Name: "v",
			VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "a"}}}}}, []string{"a"}},
		{"projected volume", corev1.PodSpec{Volumes: []corev1.Volume{{Name: "v",
			VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: ref("cm")}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: ref("b")}}}}}}}}, []string{"b"}},
		{"configmap volume is not a secret", corev1.PodSpec{Volumes: []corev1.Volume{{Name: "v",
			VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: ref("a")}}}}}, nil},
		{"env secretKeyRef", corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Env: envKey("c")}}}, []string{"c"}},
		{"envFrom secretRef", corev1.PodSpec{Containers: []corev1.Container{{Name: "c", EnvFrom: envFrom("d")}}}, []string{"d"}},
		{"envFrom configMapRef is not a secret", corev1.PodSpec{Containers: []corev1.Container{{Name: "c",
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: ref("d")}}}}}}, nil},
		{"init container", corev1.PodSpec{InitContainers: []corev1.Container{{Name: "i", Env: envKey("e")}}}, []string{"e"}},
		{"ephemeral container", corev1.PodSpec{EphemeralContainers: []corev1.EphemeralContainer{{
			EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "x", EnvFrom: envFrom("f")}}}}, []string{"f"}},
		{"image pull secret is not read", corev1.PodSpec{ImagePullSecrets: []corev1.LocalObjectReference{ref("g")}}, nil},
		{"sorted without repeats", corev1.PodSpec{
			Volumes:    []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "z"}}}},
			Containers: []corev1.Container{{Name: "c", Env: envKey("a"), EnvFrom: envFrom("z")}}}, []string{"a", "z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tpl := &corev1.PodTemplateSpec{Spec: tc.spec}
			if got := SecretsOf(tpl); !slices.Equal(got, tc.want) {
				t.Fatalf("SecretsOf = %v, want %v", got, tc.want)
			}
			for _, n := range tc.want {
				if !Consumes(tpl, n) {
					t.Errorf("Consumes(%q) = false", n)
				}
			}
			if Consumes(tpl, "other") {
				t.Errorf("Consumes(other) = true")
			}
			d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: *tpl.DeepCopy()}}
			if _, err := Trim(d); err != nil {
				t.Fatal(err)
			}
			if got := SecretsOf(&d.Spec.Template); !slices.Equal(got, tc.want) {
				t.Fatalf("SecretsOf after Trim = %v, want %v", got, tc.want)
			}
		})
	}
}
