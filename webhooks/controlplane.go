package webhooks

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// MsgControlPlaneExists: namespace, the existing ControlPlane's name.
const MsgControlPlaneExists = "at most one ControlPlane per namespace: namespace %q already holds ControlPlane %q"

// MsgServiceConsentIsAdmin: the namespaces of
// spec.korc.serviceRegistrations.allowedNamespaces, comma-separated.
const MsgServiceConsentIsAdmin = "spec.korc.serviceRegistrations.allowedNamespaces [%s] may register KeystoneServices, " +
	"which can grant any role on any project and adopt any unmanaged Keystone user: whoever may create one there is, in effect, " +
	"cloud admin; list only platform namespaces your operators control (docs/reference/keystoneservice.md, \"Namespace consent\")"

// MsgTenantNamespaceConsented: the namespace.
const MsgTenantNamespaceConsented = "namespace %q is a tenant namespace (spec.namespaceAssignments) and is consented for " +
	"KeystoneServices (spec.korc.serviceRegistrations.allowedNamespaces): its tenants' role allowlist does not bind a " +
	"KeystoneService; remove it from allowedNamespaces unless every creator there is trusted as cloud admin"

// ConsentWarnings are the admission warnings of cp's KeystoneService
// consent: one naming every allowedNamespaces entry as cloud-admin trust,
// and one per tenant namespace also consented
// (ControlPlane.ConsentedTenantNamespaces). None without allowedNamespaces.
func ConsentWarnings(cp *c5c3v1alpha1.ControlPlane) admission.Warnings {
	allowed := cp.Spec.KORC.ServiceRegistrations.AllowedNamespaces
	if len(allowed) == 0 {
		return nil
	}
	w := admission.Warnings{fmt.Sprintf(MsgServiceConsentIsAdmin, strings.Join(allowed, ", "))}
	for _, ns := range cp.ConsentedTenantNamespaces() {
		w = append(w, fmt.Sprintf(MsgTenantNamespaceConsented, ns))
	}
	return w
}

// MsgControlPlaneNameNotLabelValue: the name's length in bytes (a generated
// name counts generateName plus the 5 characters the API server appends).
const MsgControlPlaneNameNotLabelValue = "metadata.name must be at most 63 bytes: every object a ControlPlane writes carries its name as the value of the label c5c3.io/controlplane, and a label value is at most 63 bytes; this name is %d bytes"

// ControlPlaneValidator enforces one ControlPlane per namespace on create
// (docs/reference/controlplane.md, "Plane contract"; upstream c5c3 does the
// same in validateUniqueInNamespace, github.com/blut/c5c3-forge
// operators/c5c3/api/v1alpha1/controlplane_webhook.go). It lists through an uncached reader, so a ControlPlane
// created a moment ago is seen. Two creates racing each other can both pass;
// the reconciler parks the newer one with Ready=False/DuplicateControlPlane.
type ControlPlaneValidator struct {
	// Reader lists ControlPlanes; use the manager's API reader (uncached).
	Reader client.Reader
}

var _ admission.Validator[*c5c3v1alpha1.ControlPlane] = ControlPlaneValidator{}

// ValidateCreate rejects a name longer than
// c5c3v1alpha1.MaxOwnerNameLength (the plane's objects carry it as a label
// value; docs/reference/controlplane.md, "Plane contract") and a second
// ControlPlane in a namespace.
func (v ControlPlaneValidator) ValidateCreate(ctx context.Context, cp *c5c3v1alpha1.ControlPlane) (admission.Warnings, error) {
	nameLen := len(cp.Name)
	if cp.Name == "" && cp.GenerateName != "" {
		nameLen = len(cp.GenerateName) + 5
	}
	if nameLen > c5c3v1alpha1.MaxOwnerNameLength {
		return nil, fmt.Errorf(MsgControlPlaneNameNotLabelValue, nameLen)
	}
	var list c5c3v1alpha1.ControlPlaneList
	if err := v.Reader.List(ctx, &list, client.InNamespace(cp.Namespace)); err != nil {
		return nil, fmt.Errorf("listing ControlPlanes in namespace %q: %w", cp.Namespace, err)
	}
	for _, other := range list.Items {
		if other.Name != cp.Name {
			return nil, fmt.Errorf(MsgControlPlaneExists, cp.Namespace, other.Name)
		}
	}
	return ConsentWarnings(cp), nil
}

// ValidateUpdate admits every update: the name and one-per-namespace rules
// bind on create only, so a plane stored before the name bound can still be
// updated and deleted. It warns (ConsentWarnings) when the update changes
// allowedNamespaces or namespaceAssignments.
func (ControlPlaneValidator) ValidateUpdate(_ context.Context, old, cp *c5c3v1alpha1.ControlPlane) (admission.Warnings, error) {
	if equality.Semantic.DeepEqual(old.Spec.KORC.ServiceRegistrations, cp.Spec.KORC.ServiceRegistrations) &&
		equality.Semantic.DeepEqual(old.Spec.NamespaceAssignments, cp.Spec.NamespaceAssignments) {
		return nil, nil
	}
	return ConsentWarnings(cp), nil
}

// ValidateDelete admits every deletion.
func (ControlPlaneValidator) ValidateDelete(context.Context, *c5c3v1alpha1.ControlPlane) (admission.Warnings, error) {
	return nil, nil
}
