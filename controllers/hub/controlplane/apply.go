package controlplane

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/apply"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
)

// writeClouds writes the admin password cloud into both clouds.yaml Secrets.
func (r *Reconciler) writeClouds(ctx context.Context, cp *c5c3v1alpha1.ControlPlane, password string, ca []byte) error {
	doc, err := cloudsyaml.Render(AdminOf(cp).CloudName, PasswordCloud(cp, password))
	if err != nil {
		return err
	}
	data := map[string][]byte{cloudsyaml.Key: doc}
	if len(ca) > 0 {
		data[CACertKey] = ca
	}
	owner := ownerRef(cp)
	for _, name := range CloudsSecretNames(cp) {
		if _, err := apply.Deliver(ctx, r.client, ControllerName, apply.Secret{Namespace: cp.Namespace, Name: name,
			Data: data, Labels: Labels(cp), Owner: &owner}); err != nil {
			return err
		}
	}
	return nil
}

// applyDomainImport applies the admin Domain import, owned by the plane.
func (r *Reconciler) applyDomainImport(ctx context.Context, cp *c5c3v1alpha1.ControlPlane) error {
	d := DomainImport(cp)
	d.OwnerReferences = []metav1.OwnerReference{ownerRef(cp)}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: m}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	if err := r.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(ControllerName),
		client.ForceOwnership); err != nil {
		return fmt.Errorf("apply the admin Domain import %s/%s: %w", d.Namespace, d.Name, err)
	}
	return nil
}

// warnTenantConsent emits EventTenantNamespaceConsented per tenant namespace
// cp also consents for KeystoneServices, once per observed generation.
func (r *Reconciler) warnTenantConsent(cp *c5c3v1alpha1.ControlPlane) {
	for _, ns := range cp.ConsentedTenantNamespaces() {
		r.recorder.Eventf(cp, nil, corev1.EventTypeWarning, c5c3v1alpha1.EventTenantNamespaceConsented, "Reconcile",
			"namespace %s is a tenant namespace (spec.namespaceAssignments) and is consented for KeystoneServices "+
				"(spec.korc.serviceRegistrations.allowedNamespaces): whoever may create a KeystoneService there is, in effect, "+
				"cloud admin, whatever its allowedRoles; remove it from allowedNamespaces unless every creator there is trusted", ns)
	}
}

func ownerRef(cp *c5c3v1alpha1.ControlPlane) metav1.OwnerReference {
	t := true
	return metav1.OwnerReference{APIVersion: c5c3v1alpha1.GroupVersion.String(), Kind: "ControlPlane",
		Name: cp.Name, UID: cp.UID, Controller: &t}
}
