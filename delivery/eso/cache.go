package eso

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// CompactPushSecret is a cache transform (a
// k8s.io/client-go/tools/cache.TransformFunc) for PushSecrets read as
// unstructured objects. Of status.syncedPushSecrets it keeps the keys,
// "<kind>/<store>" and then "<remoteKey>/<property>", which IsPushed reads,
// and replaces each entry (ESO's match and conversion strategy, about half
// of a PushSecret's size) by an empty map. Anything else, and any other
// object, is returned unchanged. The object is changed in place, as a
// transform may; a copy read from such a cache must not be written back
// with an update (the hub writes PushSecrets with server-side apply and
// merge patches only).
func CompactPushSecret(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u.GetKind() != KindPushSecret {
		return obj, nil
	}
	status, _ := u.Object["status"].(map[string]any)
	stores, _ := status["syncedPushSecrets"].(map[string]any)
	for _, s := range stores {
		refs, ok := s.(map[string]any)
		if !ok {
			continue
		}
		for ref := range refs {
			refs[ref] = map[string]any{}
		}
	}
	return obj, nil
}
