package korc

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PasswordKey is the key of a password Secret K-ORC reads through a User's
// spec.resource.passwordRef (K-ORC internal/controllers/user: secret.Data["password"]).
const PasswordKey = "password"

// LabelPasswordGeneration carries the generation N of a generation-scoped
// password Secret (...-password-v<N>), so the current one is found by listing.
const LabelPasswordGeneration = "c5c3.io/password-generation"

// PasswordSecret is the generation-scoped password Secret c.Name (usually
// ...-password-v<generation>) holding password under PasswordKey, labelled
// with c.Labels and LabelPasswordGeneration. Its content never changes: a
// rotation is a new Secret under a new name, because K-ORC applies a
// password only when the passwordRef name changes.
func PasswordSecret(c Child, generation int64, password []byte, annotations map[string]string) *corev1.Secret {
	labels := map[string]string{LabelPasswordGeneration: strconv.FormatInt(generation, 10)}
	for k, v := range c.Labels {
		labels[k] = v
	}
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: c.Name, Namespace: c.Namespace, Labels: labels, Annotations: annotations},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{PasswordKey: password},
	}
}

// PasswordGeneration reads the generation of a password Secret from its
// LabelPasswordGeneration label; ok is false when it is absent or not a
// positive integer.
func PasswordGeneration(s *corev1.Secret) (int64, bool) {
	n, err := strconv.ParseInt(s.Labels[LabelPasswordGeneration], 10, 64)
	return n, err == nil && n > 0
}

// PasswordSecrets indexes the live password Secrets of secrets by
// PasswordGeneration, each only under the name name gives its
// PasswordDiscriminator; the map points into secrets.
func PasswordSecrets(secrets []corev1.Secret, name func(discriminator string) string) map[int64]*corev1.Secret {
	out := map[int64]*corev1.Secret{}
	for i := range secrets {
		s := &secrets[i]
		if g, ok := PasswordGeneration(s); ok && s.DeletionTimestamp.IsZero() && s.Name == name(PasswordDiscriminator(g)) {
			out[g] = s
		}
	}
	return out
}

// GenerationOfPasswordRef parses N out of a passwordRef name ending in
// "-password-v<N>" (PasswordDiscriminator); ok is false for any other name.
func GenerationOfPasswordRef(ref string) (int64, bool) {
	i := strings.LastIndex(ref, "-password-v")
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(ref[i+len("-password-v"):], 10, 64)
	return n, err == nil && n > 0
}
