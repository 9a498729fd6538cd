package eso

import (
	"crypto/sha3"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ConditionReady is the condition type ESO sets on SecretStores,
// ExternalSecrets and PushSecrets.
const ConditionReady = "Ready"

// Ready reasons ESO v0.16.2 writes (apis/externalsecrets/v1 and v1alpha1).
const (
	ReasonStoreValid        = "Valid" // SecretStore Ready=True
	ReasonStoreInvalid      = "InvalidStoreConfiguration"
	ReasonStoreValidation   = "ValidationFailed"
	ReasonSecretSynced      = "SecretSynced"      // ExternalSecret Ready=True
	ReasonSecretSyncedError = "SecretSyncedError" // ExternalSecret Ready=False
	ReasonSecretDeleted     = "SecretDeleted"
	ReasonSecretMissing     = "SecretMissing"
	ReasonPushSecretSynced  = "Synced"  // PushSecret Ready=True
	ReasonPushSecretErrored = "Errored" // PushSecret Ready=False
)

// AnnotationDataHash is the annotation ESO writes on every Secret an
// ExternalSecret manages: a hash of the Secret's data as ESO last wrote it
// (esv1.AnnotationDataHash). orderhub compares delivered bytes itself and
// only names the key, e.g. to leave it alone.
const AnnotationDataHash = "reconcile.external-secrets.io/data-hash"

// Condition is the Ready condition as read from an ESO object. ESO's
// conditions carry no observedGeneration; use IsSyncedCurrent to tell whether
// a condition describes the object's current generation and metadata.
type Condition struct {
	// Found is false when the object has no Ready condition yet.
	Found bool
	// Status is "True", "False" or "Unknown" (empty when not Found).
	Status  string
	Reason  string
	Message string
}

// True reports a found Ready=True condition.
func (c Condition) True() bool { return c.Found && c.Status == "True" }

// ReadyCondition returns u's Ready condition.
func ReadyCondition(u *unstructured.Unstructured) Condition {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != ConditionReady {
			continue
		}
		return Condition{Found: true, Status: str(m["status"]), Reason: str(m["reason"]), Message: str(m["message"])}
	}
	return Condition{}
}

// SyncedResourceVersion returns status.syncedResourceVersion: the
// "<generation>-<meta hash>" of the object as ESO last synced it (empty
// before the first sync, and not advanced by a failed sync).
func SyncedResourceVersion(u *unstructured.Unstructured) string {
	s, _, _ := unstructured.NestedString(u.Object, "status", "syncedResourceVersion")
	return s
}

// CurrentResourceVersion recomputes what ESO v0.16.2 writes to
// status.syncedResourceVersion for u as it is now
// (pkg/controllers/util.GetResourceVersion): the generation, '-', and the
// hex SHA3-224 of fmt's %+v rendering of a struct of the annotations and
// labels maps (fmt sorts map keys, so the value is deterministic).
func CurrentResourceVersion(u *unstructured.Unstructured) string {
	type meta struct {
		annotations map[string]string
		labels      map[string]string
	}
	h := sha3.Sum224([]byte(fmt.Sprintf("%+v", meta{annotations: u.GetAnnotations(), labels: u.GetLabels()})))
	return fmt.Sprintf("%d-%x", u.GetGeneration(), h)
}

// IsSyncedCurrent reports whether ESO's last successful sync saw u's current
// generation, labels and annotations: after a force-sync annotation change it
// turns true only once ESO synced again.
func IsSyncedCurrent(u *unstructured.Unstructured) bool {
	s := SyncedResourceVersion(u)
	return s != "" && s == CurrentResourceVersion(u)
}

// IsReadyAndCurrent reports Ready=True from a sync of u as it is now: the gate
// the hub waits on after a push or force-sync.
func IsReadyAndCurrent(u *unstructured.Unstructured) bool {
	return ReadyCondition(u).True() && IsSyncedCurrent(u)
}

// IsPushed reports whether a PushSecret's status.syncedPushSecrets records a
// push of remoteKey/property to the store of kind (empty means
// SecretStore) and storeName. ESO keys that map by "<kind>/<store>" and
// "<remoteKey>/<property>".
func IsPushed(u *unstructured.Unstructured, kind, storeName, remoteKey, property string) bool {
	ref := remoteKey
	if property != "" {
		ref += "/" + property
	}
	_, found, _ := unstructured.NestedMap(u.Object, "status", "syncedPushSecrets", storeKind(kind)+"/"+storeName, ref)
	return found
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	return strings.TrimSpace(fmt.Sprint(v))
}
