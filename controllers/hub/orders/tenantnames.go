package orders

import (
	"fmt"
	"slices"
	"strings"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/internal/keystone"
)

// TenantNameGate is the tenant-name rule of assignment a for an order of
// kind (KindKeystoneUser or KindKeystoneProject) creating name in domain
// (docs/reference/controlplane.md, "Tenant names"): a domain a.Domains does
// not list exactly (case- and accent-sensitive, right on every Keystone
// backend: a SQLite or PostgreSQL Keystone holds TENANT-DOM and tenant-dom as
// two domains) closes it with TenantDomainNotAllowed; without a.Domains only
// the closed domains do, compared as a MySQL Keystone folds names
// (keystone.SameIdentityName), so no spelling reopens them (the plane's admin
// domain and its service account domains, ClosedDomains); a name not starting with
// a.NamePrefix (case-sensitive) closes it with TenantNamePrefix. A nil a and
// an absent prefix pass. Pure.
func TenantNameGate(a *c5c3v1alpha1.NamespaceAssignment, closed []string, kind, domain, name string) conditions.Gate {
	if a == nil {
		return conditions.Gate{}
	}
	if len(a.Domains) > 0 && !slices.Contains(a.Domains, c5c3v1alpha1.KeystoneName(domain)) {
		listed := make([]string, 0, len(a.Domains))
		for _, d := range a.Domains {
			listed = append(listed, string(d))
		}
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonTenantDomainNotAllowed, Message: fmt.Sprintf(
			"%s may not create in Keystone domain %q: this namespace's assignment on the ControlPlane lists the domains [%s], matched exactly (case-sensitive); "+
				"order again with spec.domainName set to one of them as spelled there (it is immutable), or ask the plane's operator to add the domain to spec.namespaceAssignments[].domains",
			kind, domain, strings.Join(listed, ", "))}
	}
	if len(a.Domains) == 0 && nameListed(closed, domain) {
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonTenantDomainNotAllowed, Message: fmt.Sprintf(
			"%s may not create in Keystone domain %q: it is the plane's admin domain or a service account domain, open to a tenant namespace only when "+
				"its assignment on the ControlPlane lists it in spec.namespaceAssignments[].domains; order again in another domain (spec.domainName is immutable: a new order), "+
				"or ask the plane's operator to list it", kind, domain)}
	}
	if a.NamePrefix != "" && !strings.HasPrefix(name, a.NamePrefix) {
		field := "spec.userName"
		if kind == KindKeystoneProject {
			field = "spec.projectName"
		}
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonTenantNamePrefix, Message: fmt.Sprintf(
			"%s name %q does not start with %q, the namePrefix of this namespace's assignment on the ControlPlane: order again with %s (or, without it, the order's name) starting with it",
			kind, name, a.NamePrefix, field)}
	}
	return conditions.Gate{}
}

// nameListed reports whether names holds domain as a MySQL Keystone compares
// names (folding case and accents): the wider match, for the closed domains.
func nameListed[N ~string](names []N, domain string) bool {
	for _, n := range names {
		if keystone.SameIdentityName(string(n), domain) {
			return true
		}
	}
	return false
}
