package controlplane

import (
	"fmt"
	"slices"
	"strings"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/eso"
)

// The tenant store (docs/reference/openbao.md): in every consented
// namespace the plane provisions a ServiceAccount and a SecretStore that
// logs in to OpenBao's Kubernetes auth method as that ServiceAccount. The
// OpenBao role binds the ServiceAccount's name; its policy, templated on
// the ServiceAccount's namespace, grants only that namespace's backup
// leaves. No OpenBao token is written into any namespace.

// TenantStore is the SecretStore the plane provisions in namespace ns under
// the name store (StoreName).
func TenantStore(cp *c5c3v1alpha1.ControlPlane, ob OpenBao, store, ns string) eso.SecretStore {
	return eso.SecretStore{Name: store, Namespace: ns, Labels: Labels(cp), Server: ob.Address, Mount: ob.Mount,
		Kubernetes: &eso.KubernetesAuth{MountPath: ob.AuthMount, Role: ob.Role, ServiceAccount: ob.ServiceAccount}}
}

// TearingDown returns the namespaces, sorted and deduplicated, of the
// KeystoneServices in services that reference cp and are being deleted
// while still holding their teardown finalizer. Their PushSecrets can only
// remove their backups through the namespace's store, so the plane keeps
// (or restores) the store and ServiceAccount there until the teardown ends,
// also when the namespace is no longer consented (docs/reference/openbao.md,
// "De-listing and re-listing").
func TearingDown(cp *c5c3v1alpha1.ControlPlane, services []c5c3v1alpha1.KeystoneService) []string {
	var out []string
	for i := range services {
		ks := &services[i]
		if ks.DeletionTimestamp.IsZero() || !slices.Contains(ks.Finalizers, c5c3v1alpha1.FinalizerKeystoneServiceTeardown) ||
			ks.Spec.ControlPlaneRef.Name != cp.Name || ks.ControlPlaneNamespace() != cp.Namespace {
			continue
		}
		out = append(out, ks.Namespace)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// StoreNamespaces are the namespaces the plane provisions a store in: the
// consented ones and those a KeystoneService teardown still needs
// (TearingDown), sorted and deduplicated.
func StoreNamespaces(consented, tearingDown []string) []string {
	out := append(slices.Clone(consented), tearingDown...)
	slices.Sort(out)
	return slices.Compact(out)
}

// Placed is a namespaced object the plane labelled (Labels) and found.
type Placed struct {
	Namespace, Name string
}

// Stale returns the plane's labelled tenant objects (SecretStores or
// ServiceAccounts) to delete: those in a namespace the plane no longer
// consents to (de-listed from allowedNamespaces, or a service namespace
// dropped). consented is StoreNamespaces. Objects in a consented
// namespace stay, whatever their name: a store left by a rename of
// spec.secretStoreRef logs in as the same identity, and deleting it could
// strand the PushSecrets still naming it.
func Stale(consented []string, found []Placed) []Placed {
	var out []Placed
	for _, p := range found {
		if !slices.Contains(consented, p.Namespace) {
			out = append(out, p)
		}
	}
	return out
}

// LegacyTokenSuffix ends the name of the OpenBao token copies
// (<store>-token) that orderhub before Kubernetes auth wrote into every
// consented namespace.
const LegacyTokenSuffix = "-token"

// IsLegacyTokenCopy reports whether a Secret the plane labelled (Labels) is
// such a token copy, to be deleted on upgrade: its name ends in -token and it
// is not one of the plane's admin clouds.yaml Secrets (the only other
// Secrets carrying the plane's labels, and only in its own namespace).
func IsLegacyTokenCopy(cp *c5c3v1alpha1.ControlPlane, s Placed) bool {
	if !strings.HasSuffix(s.Name, LegacyTokenSuffix) {
		return false
	}
	return s.Namespace != cp.Namespace || !slices.Contains(CloudsSecretNames(cp), s.Name)
}

// StoreNotReadyMessage says why the plane's own store is not Ready (ESO's
// condition c) and what it logs in as, naming the setup page as the remedy:
// a store that cannot log in usually means OpenBao lacks the auth method,
// the role or the policy.
func StoreNotReadyMessage(ns, store string, ob OpenBao, c eso.Condition) string {
	why := strings.TrimSpace(c.Reason + " " + c.Message)
	if !c.Found {
		why = "ESO has not validated it yet"
	}
	return fmt.Sprintf("SecretStore %s/%s is not Ready: %s (it logs in to OpenBao's Kubernetes auth at auth/%s as role %s "+
		"with ServiceAccount %s/%s; docs/reference/openbao.md says how to set OpenBao up)",
		ns, store, why, ob.AuthMount, ob.Role, ns, ob.ServiceAccount)
}
