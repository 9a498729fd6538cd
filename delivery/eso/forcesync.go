package eso

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// AnnotationForceSync is the annotation the hub changes to force ESO to sync
// an ExternalSecret (or a PushSecret) now rather than at its refresh interval.
//
// ESO v0.16.2 has no constant for it and reads no particular key: its
// ExternalSecret and PushSecret controllers re-sync whenever
// status.syncedResourceVersion differs from "<generation>-<hash of labels and
// annotations>" (pkg/controllers/util.GetResourceVersion, used by
// externalsecret shouldRefresh and pushsecret shouldRefresh), so changing the
// value of any annotation forces a sync; its docs use the bare key force-sync
// (docs/api/externalsecret.md "Manual Refresh"). orderhub uses
// external-secrets.io/force-sync, the key later ESO releases define as
// esv1.AnnotationForceSync and upstream c5c3 stamps, so the nudge keeps
// working across an ESO upgrade.
const AnnotationForceSync = "external-secrets.io/force-sync"

// AnnotationContentHash records on a PushSecret the ContentHash of the source
// Secret data it must push. The source Secret is not watched by ESO, so
// changing this annotation whenever the source changes is what makes ESO push
// the new content (upstream c5c3's c5c3.io/service-account-push-hash,
// github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/reconcile_serviceaccounts.go).
const AnnotationContentHash = "c5c3.io/content-hash"

// ContentHash is a stable digest of Secret data: "sha256:" and the hex
// SHA-256 over the keys in sorted order, each key and value length-prefixed
// (so no two different maps share an input). It reveals nothing usable about
// the values and may be stored in annotations.
func ContentHash(data map[string][]byte) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	var n [8]byte
	for _, k := range keys {
		for _, b := range [][]byte{[]byte(k), data[k]} {
			binary.BigEndian.PutUint64(n[:], uint64(len(b)))
			h.Write(n[:])
			h.Write(b)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// ForceSyncValue is the force-sync annotation value for an ExternalSecret
// fed by a push: the pushed content's hash and the PushSecret's
// syncedResourceVersion, joined by '/'. It changes whenever the content or a
// push changes, so stamping it after each push forces exactly one re-fetch.
func ForceSyncValue(contentHash, pushSyncedVersion string) string {
	return contentHash + "/" + pushSyncedVersion
}

// StampAnnotations sets annotations on the ESO object of gvk at key with a
// JSON merge patch, touching no other field, and reports whether anything
// changed (an object already carrying the values is not written). A value
// change forces ESO to sync the object (see AnnotationForceSync). It returns
// the client's error, e.g. NotFound.
func StampAnnotations(ctx context.Context, c client.Client, gvk schema.GroupVersionKind, key types.NamespacedName, annotations map[string]string) (bool, error) {
	u := New(gvk)
	if err := c.Get(ctx, key, u); err != nil {
		return false, err
	}
	if !needsStamp(u, annotations) {
		return false, nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return false, err
	}
	if err := c.Patch(ctx, u, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return false, fmt.Errorf("eso: annotate %s %s: %w", gvk.Kind, key, err)
	}
	return true, nil
}

func needsStamp(u *unstructured.Unstructured, annotations map[string]string) bool {
	have := u.GetAnnotations()
	for k, v := range annotations {
		if cur, ok := have[k]; !ok || cur != v {
			return true
		}
	}
	return false
}
