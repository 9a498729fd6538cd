package consumers

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// Trim is a cache transform for the hub's watches of Deployments,
// StatefulSets and DaemonSets: it keeps what SecretsOf, the rollout checks
// and OptedIn read (the opt-in annotation, replicas, status, the pod
// template's stamp annotations and the names of the Secrets it references)
// and drops the rest, so a cluster's workloads cost the hub little memory
// whatever their annotations hold. Any other object is returned unchanged. A
// trimmed object MUST NOT be sent back to the API server: the hub stamps
// workloads with merge patches only (Sync).
func Trim(obj any) (any, error) {
	var t *corev1.PodTemplateSpec
	switch o := obj.(type) {
	case *appsv1.Deployment:
		t = &o.Spec.Template
		o.Annotations = optIn(o.Annotations)
	case *appsv1.StatefulSet:
		t = &o.Spec.Template
		o.Spec.VolumeClaimTemplates = nil
		o.Annotations = optIn(o.Annotations)
	case *appsv1.DaemonSet:
		t = &o.Spec.Template
		o.Annotations = optIn(o.Annotations)
	default:
		return obj, nil
	}
	t.Annotations = stamps(t.Annotations)
	t.Spec = corev1.PodSpec{Volumes: secretVolumes(t.Spec.Volumes),
		InitContainers: secretEnv(t.Spec.InitContainers), Containers: secretEnv(t.Spec.Containers),
		EphemeralContainers: secretEnvEphemeral(t.Spec.EphemeralContainers)}
	return obj, nil
}

// optIn keeps only the opt-in annotation of a workload's annotations.
func optIn(a map[string]string) map[string]string {
	v, ok := a[c5c3v1alpha1.AnnotationRolloutOnCredentialChange]
	if !ok {
		return nil
	}
	return map[string]string{c5c3v1alpha1.AnnotationRolloutOnCredentialChange: v}
}

// stamps keeps only the stamp annotations (StampKey) of a pod template's.
func stamps(a map[string]string) map[string]string {
	var out map[string]string
	for k, v := range a {
		if strings.HasPrefix(k, c5c3v1alpha1.AnnotationCredentialPrefix) {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// secretVolumes keeps the secret and projected volumes, their Secret names only.
func secretVolumes(vs []corev1.Volume) []corev1.Volume {
	var out []corev1.Volume
	for _, v := range vs {
		switch {
		case v.Secret != nil:
			out = append(out, corev1.Volume{Name: v.Name, VolumeSource: corev1.VolumeSource{
				Secret: &corev1.SecretVolumeSource{SecretName: v.Secret.SecretName}}})
		case v.Projected != nil:
			p := &corev1.ProjectedVolumeSource{}
			for _, s := range v.Projected.Sources {
				if s.Secret != nil {
					p.Sources = append(p.Sources, corev1.VolumeProjection{Secret: &corev1.SecretProjection{
						LocalObjectReference: s.Secret.LocalObjectReference}})
				}
			}
			out = append(out, corev1.Volume{Name: v.Name, VolumeSource: corev1.VolumeSource{Projected: p}})
		}
	}
	return out
}

// secretEnv keeps each container's name and its Secret env references.
func secretEnv(cs []corev1.Container) []corev1.Container {
	out := make([]corev1.Container, 0, len(cs))
	for _, c := range cs {
		env, from := secretRefs(c.Env, c.EnvFrom)
		out = append(out, corev1.Container{Name: c.Name, Env: env, EnvFrom: from})
	}
	return out
}

func secretEnvEphemeral(cs []corev1.EphemeralContainer) []corev1.EphemeralContainer {
	out := make([]corev1.EphemeralContainer, 0, len(cs))
	for _, c := range cs {
		env, from := secretRefs(c.Env, c.EnvFrom)
		out = append(out, corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
			Name: c.Name, Env: env, EnvFrom: from}})
	}
	return out
}

func secretRefs(env []corev1.EnvVar, from []corev1.EnvFromSource) ([]corev1.EnvVar, []corev1.EnvFromSource) {
	var e []corev1.EnvVar
	for _, v := range env {
		if v.ValueFrom != nil && v.ValueFrom.SecretKeyRef != nil {
			e = append(e, corev1.EnvVar{Name: v.Name, ValueFrom: &corev1.EnvVarSource{
				SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: v.ValueFrom.SecretKeyRef.LocalObjectReference}}})
		}
	}
	var f []corev1.EnvFromSource
	for _, s := range from {
		if s.SecretRef != nil {
			f = append(f, corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: s.SecretRef.LocalObjectReference}})
		}
	}
	return e, f
}
