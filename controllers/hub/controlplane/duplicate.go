package controlplane

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// DuplicateRecheckInterval is the requeue of a parked duplicate (a safety net).
const DuplicateRecheckInterval = 30 * time.Second

// Duplicate returns the oldest plane in others (cp's namespace only) that
// is older than cp, or nil when cp may proceed (docs/reference/controlplane.md,
// "Plane contract"). Older: earlier creationTimestamp, then the smaller name;
// a plane being deleted counts until it is gone.
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

// DuplicateConditions are AdminCredentialReady=False and Ready=False with
// reason DuplicateControlPlane, naming older and the remedy.
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
