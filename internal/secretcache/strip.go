package secretcache

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// AnnotationDataNotCached marks a cached Secret whose data Strip dropped. It
// exists only in the cache: Client never returns a marked Secret.
const AnnotationDataNotCached = "orderhub.c5c3.io/data-not-cached"

// LabelPrefix is the prefix of the label keys every Secret the hub writes
// carries (api/c5c3/v1alpha1 labels.go).
const LabelPrefix = "c5c3.io/"

// Keep reports whether a Secret with these labels keeps its data in the cache.
type Keep func(labels map[string]string) bool

// HasLabelPrefix keeps Secrets with a label key starting with LabelPrefix.
func HasLabelPrefix(labels map[string]string) bool {
	for k := range labels {
		if strings.HasPrefix(k, LabelPrefix) {
			return true
		}
	}
	return false
}

// Strip drops s's Data and StringData and sets AnnotationDataNotCached unless
// keep selects s; it changes s in place (a cache transform's contract).
func Strip(s *corev1.Secret, keep Keep) {
	if keep(s.Labels) {
		return
	}
	s.Data, s.StringData = nil, nil
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	s.Annotations[AnnotationDataNotCached] = "true"
}

// Stripped reports whether s came from the cache without its data.
func Stripped(s *corev1.Secret) bool { return s.Annotations[AnnotationDataNotCached] == "true" }

// Transform is a cache transform applying Strip with keep to Secrets and
// passing every other object through next (nil: unchanged).
func Transform(keep Keep, next func(any) (any, error)) func(any) (any, error) {
	return func(obj any) (any, error) {
		if s, ok := obj.(*corev1.Secret); ok {
			Strip(s, keep)
		}
		if next == nil {
			return obj, nil
		}
		return next(obj)
	}
}
