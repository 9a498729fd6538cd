package controlplane

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// The tenant objects (the ServiceAccount and the SecretStore in a consented
// namespace) are written only when absent or already the plane's own
// (docs/reference/controlplane.md, "Tenant objects are never taken over"):
// an object of the same name that somebody else made, or that another
// plane provisioned, is left untouched and reported, and the sweep deletes
// only objects carrying the plane's Labels.

// NotOurs says why an existing tenant object with metadata m is not the
// plane cp's to write, or returns "" when it is. It is the plane's when its
// labels are the plane's Labels (managed-by orderhub, the plane's name and
// namespace) and any controller owner reference it carries is a ControlPlane
// of the plane's name (its UID may differ: a re-created plane takes over
// what its predecessor provisioned, as the garbage collector would delete
// it anyway).
func NotOurs(cp *c5c3v1alpha1.ControlPlane, m metav1.Object) string {
	l := m.GetLabels()
	if l[LabelManagedBy] != LabelManagedByValue || l[LabelControlPlane] == "" || l[LabelControlPlaneNamespace] == "" {
		return "it was not provisioned by orderhub"
	}
	if l[LabelControlPlane] != cp.Name || l[LabelControlPlaneNamespace] != cp.Namespace {
		return fmt.Sprintf("ControlPlane %s/%s provisioned it", l[LabelControlPlaneNamespace], l[LabelControlPlane])
	}
	if ref := metav1.GetControllerOfNoCopy(m); ref != nil &&
		(ref.Kind != "ControlPlane" || ref.Name != cp.Name || !strings.HasPrefix(ref.APIVersion, c5c3v1alpha1.GroupVersion.Group+"/")) {
		return fmt.Sprintf("its controller is %s %s", ref.Kind, ref.Name)
	}
	return ""
}

// Foreign is a tenant object the plane found and refused to write.
type Foreign struct {
	// Kind is ServiceAccount or SecretStore.
	Kind            string
	Namespace, Name string
	// Why is NotOurs' answer.
	Why string
}

// ForeignMessage is the SecretStoreNotReady message naming every refused
// tenant object (sorted) and the remedy, or "" when found is empty.
func ForeignMessage(found []Foreign) string {
	if len(found) == 0 {
		return ""
	}
	parts := make([]string, 0, len(found))
	for _, f := range found {
		parts = append(parts, fmt.Sprintf("%s %s/%s exists and is not this plane's (%s)", f.Kind, f.Namespace, f.Name, f.Why))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ") + "; the plane does not take over or delete objects it did not create: " +
		"remove the namespace from spec.korc.serviceRegistrations.allowedNamespaces, name another store in " +
		"spec.secretStoreRef, or delete or rename the existing object (docs/reference/controlplane.md, " +
		"\"Tenant objects are never taken over\")"
}
