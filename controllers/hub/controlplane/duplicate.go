package controlplane

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// DuplicateRecheckInterval is the requeue of a parked duplicate. Creating or
// deleting a ControlPlane also enqueues every plane of its namespace
// (SetupWithManager), so this is only a safety net.
const DuplicateRecheckInterval = 30 * time.Second

// Duplicate is the one-ControlPlane-per-namespace guard of the reconciler
// (docs/reference/controlplane.md, "Plane contract"; upstream c5c3,
// github.com/blut/c5c3-forge operators/c5c3, enforces the rule in
// ValidateCreate and also parks newer duplicates in the reconciler with
// Ready=False/ DuplicateControlPlane, because concurrent creates can both pass
// the webhook).
//
// It returns the oldest plane in others, other than cp itself, that is
// older than cp, or nil when cp is the oldest plane of its namespace and may
// proceed. "Older" is a total order every plane of the namespace agrees on:
// the earlier metadata.creationTimestamp first, ties (the timestamp has
// one-second resolution) broken by the lexically smaller name. others is the
// list of ControlPlanes in cp's namespace and may contain cp; planes in
// other namespaces are ignored. A plane being deleted still counts until it
// is gone: its owned Secrets (the shared cloudCredentialsRef.secretName
// among them) are still being garbage-collected, and a duplicate taking over
// early would fight over them.
func Duplicate(cp *c5c3v1alpha1.ControlPlane, others []c5c3v1alpha1.ControlPlane) *c5c3v1alpha1.ControlPlane {
	var oldest *c5c3v1alpha1.ControlPlane
	for i := range others {
		o := &others[i]
		if o.Namespace != cp.Namespace || o.Name == cp.Name || !olderThan(o, cp) {
			continue
		}
		if oldest == nil || olderThan(o, oldest) {
			oldest = o
		}
	}
	return oldest
}

// olderThan reports whether a precedes b in Duplicate's order.
func olderThan(a, b *c5c3v1alpha1.ControlPlane) bool {
	ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	return a.Name < b.Name
}

// DuplicateConditions are the conditions of a plane parked behind older
// (Duplicate): AdminCredentialReady=False and Ready=False, both with reason
// DuplicateControlPlane and a message naming the older plane and the remedy.
// AdminCredentialReady is False so that every order and registration on the
// parked plane is held at WaitingForAdminCredential.
func DuplicateConditions(cp, older *c5c3v1alpha1.ControlPlane, generation int64) []metav1.Condition {
	msg := fmt.Sprintf("ControlPlane %s/%s already exists in this namespace (created %s) and only one ControlPlane "+
		"per namespace is served; this one (%s) is parked and projects nothing: delete ControlPlane %s/%s",
		older.Namespace, older.Name, older.CreationTimestamp.UTC().Format(time.RFC3339), cp.Name, cp.Namespace, cp.Name)
	return []metav1.Condition{
		{Type: c5c3v1alpha1.ConditionAdminCredentialReady, Status: metav1.ConditionFalse,
			Reason: c5c3v1alpha1.ReasonDuplicateControlPlane, Message: msg, ObservedGeneration: generation},
		{Type: c5c3v1alpha1.ConditionReady, Status: metav1.ConditionFalse,
			Reason: c5c3v1alpha1.ReasonDuplicateControlPlane, Message: msg, ObservedGeneration: generation},
	}
}
