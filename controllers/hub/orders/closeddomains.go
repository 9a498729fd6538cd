package orders

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
)

// ClosedDomains are the Keystone domains of plane cp closed to a tenant
// namespace whose assignment lists no domains (docs/reference/controlplane.md,
// "Tenant names"): the admin domain, then spec.account.domainName of every
// KeystoneService of cp that sets it (unset is the admin domain). Duplicates
// are kept. Errors: the KeystoneService list failed.
func ClosedDomains(ctx context.Context, hub client.Reader, cp *c5c3v1alpha1.ControlPlane) ([]string, error) {
	var list c5c3v1alpha1.KeystoneServiceList
	if err := hub.List(ctx, &list); err != nil {
		return nil, fmt.Errorf("list KeystoneServices for the closed domains of ControlPlane %s/%s: %w", cp.Namespace, cp.Name, err)
	}
	return closedDomainsOf(cp, list.Items), nil
}

// closedDomainsOf is ClosedDomains of cp among services. Pure.
func closedDomainsOf(cp *c5c3v1alpha1.ControlPlane, services []c5c3v1alpha1.KeystoneService) []string {
	closed := []string{controlplane.AdminOf(cp).Domain}
	for i := range services {
		ks := &services[i]
		if ks.Spec.Account == nil || ks.Spec.Account.DomainName == "" || !ks.OnPlane(cp.Namespace, cp.Name) {
			continue
		}
		closed = append(closed, string(ks.Spec.Account.DomainName))
	}
	return closed
}
