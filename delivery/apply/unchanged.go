package apply

import (
	"crypto/sha256"
	"encoding/json"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// Digest identifies one apply request: a SHA-256 of the field owner and
// the apply body as sent.
type Digest [sha256.Size]byte

// Record is what a successful apply left, as the server answered it: the
// object's UID and metadata.resourceVersion, and the Digest of the request.
type Record struct {
	UID             types.UID
	ResourceVersion string
	Digest          Digest
}

// DigestOf is the Digest of applying sent under fieldOwner. The preconditions
// metadata.uid and metadata.resourceVersion are left out: they say which
// object the write may land on, not what it writes. sent is not modified.
// Errors: sent does not encode as JSON.
func DigestOf(fieldOwner string, sent *unstructured.Unstructured) (Digest, error) {
	body := sent.DeepCopy()
	unstructured.RemoveNestedField(body.Object, "metadata", "uid")
	unstructured.RemoveNestedField(body.Object, "metadata", "resourceVersion")
	b, err := json.Marshal(body.Object) // map keys are sorted: the same object, the same bytes
	if err != nil {
		return Digest{}, err
	}
	h := sha256.New()
	h.Write([]byte(fieldOwner))
	h.Write([]byte{0})
	h.Write(b)
	var d Digest
	copy(d[:], h.Sum(nil))
	return d, nil
}

// AlreadyApplied reports whether the apply with Digest d of sent would write
// nothing cur (the object as the client read it, nil when absent) lacks,
// so it may be skipped (docs/performance.md, "Hub: 500 application credentials (2000 orders)", "Next cuts"). It is true only
// when all four hold:
//
//  1. last (nil: never) records a successful apply with the same Digest;
//  2. cur exists with last's UID and metadata.resourceVersion, so cur is
//     the object as that apply answered it: any later write (a spec edit by
//     anyone, which the apply then repairs, or a status K-ORC or ESO wrote)
//     sends the apply once more, and a cache behind the answer never shows
//     a status older than the last pass saw;
//  3. every label, annotation, owner reference and finalizer of sent is on
//     cur as sent (metadata edits do not bump the generation);
//  4. cur is not being deleted.
//
// Pure.
func AlreadyApplied(last *Record, d Digest, sent, cur metav1.Object) bool {
	switch {
	case last == nil || last.Digest != d:
		return false
	case cur == nil || cur.GetUID() != last.UID || cur.GetResourceVersion() != last.ResourceVersion:
		return false
	case !holds(cur.GetLabels(), sent.GetLabels()) || !holds(cur.GetAnnotations(), sent.GetAnnotations()):
		return false
	case cur.GetDeletionTimestamp() != nil:
		return false
	}
	for _, f := range sent.GetFinalizers() {
		if !slices.Contains(cur.GetFinalizers(), f) {
			return false
		}
	}
	have := cur.GetOwnerReferences()
	for _, ref := range sent.GetOwnerReferences() {
		if !slices.ContainsFunc(have, func(h metav1.OwnerReference) bool { return sameRef(h, ref) }) {
			return false
		}
	}
	return true
}

// holds reports whether have carries every key of want with want's value.
func holds(have, want map[string]string) bool {
	for k, v := range want {
		if w, ok := have[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func sameRef(a, b metav1.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		flag(a.Controller) == flag(b.Controller) && flag(a.BlockOwnerDeletion) == flag(b.BlockOwnerDeletion)
}

func flag(p *bool) bool { return p != nil && *p }
