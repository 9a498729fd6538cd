package consumers

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Consumes reports whether pod template t reads Secret name (in its own
// namespace): SecretsOf lists it.
func Consumes(t *corev1.PodTemplateSpec, name string) bool {
	return slices.Contains(SecretsOf(t), name)
}

// SecretsOf lists, sorted and without repeats, the Secrets pod template t
// reads: secret volumes, projected volumes' secret sources, and env
// valueFrom.secretKeyRef and envFrom.secretRef of every container, init
// container and ephemeral container
// (https://kubernetes.io/docs/concepts/configuration/secret/#using-secrets).
// Image pull secrets are not read by the workload and are not listed.
func SecretsOf(t *corev1.PodTemplateSpec) []string {
	var names []string
	for _, v := range t.Spec.Volumes {
		if v.Secret != nil {
			names = append(names, v.Secret.SecretName)
		}
		if v.Projected == nil {
			continue
		}
		for _, s := range v.Projected.Sources {
			if s.Secret != nil {
				names = append(names, s.Secret.Name)
			}
		}
	}
	for _, c := range t.Spec.InitContainers {
		names = envSecrets(names, c.Env, c.EnvFrom)
	}
	for _, c := range t.Spec.Containers {
		names = envSecrets(names, c.Env, c.EnvFrom)
	}
	for _, c := range t.Spec.EphemeralContainers {
		names = envSecrets(names, c.Env, c.EnvFrom)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func envSecrets(names []string, env []corev1.EnvVar, from []corev1.EnvFromSource) []string {
	for _, e := range env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			names = append(names, e.ValueFrom.SecretKeyRef.Name)
		}
	}
	for _, f := range from {
		if f.SecretRef != nil {
			names = append(names, f.SecretRef.Name)
		}
	}
	return names
}
