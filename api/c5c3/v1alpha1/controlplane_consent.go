package v1alpha1

import "slices"

// ConsentedTenantNamespaces are the namespaces listed both in
// spec.korc.serviceRegistrations.allowedNamespaces and in
// spec.namespaceAssignments on the management cluster (cluster ""), in
// allowedNamespaces order: tenant namespaces
// (they order with a role allowlist) that are also consented for
// KeystoneServices, which can grant any role on any project and adopt any
// unmanaged Keystone user (docs/reference/keystoneservice.md, "Namespace
// consent"). Whoever may create a KeystoneService there is, in effect,
// cloud admin, so the hub warns about each one (admission warning and a
// Warning event EventTenantNamespaceConsented).
func (cp *ControlPlane) ConsentedTenantNamespaces() []string {
	var out []string
	for _, ns := range cp.Spec.KORC.ServiceRegistrations.AllowedNamespaces {
		if slices.Contains(out, ns) {
			continue
		}
		for _, a := range cp.Spec.NamespaceAssignments {
			if a.Cluster == "" && a.Namespace == ns {
				out = append(out, ns)
				break
			}
		}
	}
	return out
}
