package controlplane

import (
	"fmt"
	"slices"
	"strings"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/eso"
)

// Tenant stores: see docs/reference/openbao.md. No OpenBao token is written
// into any namespace.

// TenantStore is the SecretStore store the plane provisions in namespace ns.
func TenantStore(cp *c5c3v1alpha1.ControlPlane, ob OpenBao, store, ns string) eso.SecretStore {
	return eso.SecretStore{Name: store, Namespace: ns, Labels: Labels(cp), Server: ob.Address, Mount: ob.Mount,
		Kubernetes: &eso.KubernetesAuth{MountPath: ob.AuthMount, Role: ob.Role, ServiceAccount: ob.ServiceAccount}}
}

// TearingDown returns the sorted namespaces of cp's KeystoneServices being
// deleted with their finalizer: their stores stay until the teardown ends
// (docs/reference/openbao.md, "De-listing and re-listing").
func TearingDown(cp *c5c3v1alpha1.ControlPlane, services []c5c3v1alpha1.KeystoneService) []string {
	var out []string
	for i := range services {
		ks := &services[i]
		if ks.DeletionTimestamp.IsZero() || !slices.Contains(ks.Finalizers, c5c3v1alpha1.FinalizerKeystoneServiceTeardown) ||
			!ks.OnPlane(cp.Namespace, cp.Name) {
			continue
		}
		out = append(out, ks.Namespace)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// StoreNamespaces is consented and tearingDown, sorted and deduplicated.
func StoreNamespaces(consented, tearingDown []string) []string {
	out := append(slices.Clone(consented), tearingDown...)
	slices.Sort(out)
	return slices.Compact(out)
}

// Placed is a namespaced object the plane labelled (Labels) and found.
type Placed struct {
	Namespace, Name string
}

// Stale returns the plane's labelled tenant objects outside consented
// (StoreNamespaces); in a consented namespace every object stays, so no
// PushSecret is stranded.
func Stale(consented []string, found []Placed) []Placed {
	var out []Placed
	for _, p := range found {
		if !slices.Contains(consented, p.Namespace) {
			out = append(out, p)
		}
	}
	return out
}

// LegacyTokenSuffix ends the <store>-token Secrets older releases wrote.
const LegacyTokenSuffix = "-token"

// IsLegacyTokenCopy reports a labelled <store>-token Secret that is not one of
// the plane's admin clouds.yaml Secrets.
func IsLegacyTokenCopy(cp *c5c3v1alpha1.ControlPlane, s Placed) bool {
	if !strings.HasSuffix(s.Name, LegacyTokenSuffix) {
		return false
	}
	return s.Namespace != cp.Namespace || !slices.Contains(CloudsSecretNames(cp), s.Name)
}

// StoreNotReadyMessage says why the plane's store is not Ready and what it
// logs in as, naming the setup page as the remedy.
func StoreNotReadyMessage(ns, store string, ob OpenBao, c eso.Condition) string {
	why := strings.TrimSpace(c.Reason + " " + c.Message)
	if !c.Found {
		why = "ESO has not validated it yet"
	}
	return fmt.Sprintf("SecretStore %s/%s is not Ready: %s (it logs in to OpenBao's Kubernetes auth at auth/%s as role %s "+
		"with ServiceAccount %s/%s; docs/reference/openbao.md says how to set OpenBao up)",
		ns, store, why, ob.AuthMount, ob.Role, ns, ob.ServiceAccount)
}
