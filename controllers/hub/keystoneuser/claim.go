package keystoneuser

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// ClaimKind is the orders.Claim kind of a Keystone user name.
const ClaimKind = "user"

// userClaim is the claim on the Keystone user name in domain (the
// effective name and domain; breaker H2).
func userClaim(name, domain string) orders.Claim {
	return orders.Claim{Kind: ClaimKind, Domain: domain, Name: name}
}

// claimClient is the management cluster's client for claims: writes go
// through the manager's client, reads straight to the API server (the
// claim must be read as it is, and the operator's RBAC on leases is
// get;create;delete, no list or watch for an informer).
type claimClient struct {
	client.Client
	reader client.Reader
}

// Get reads obj from the API server, bypassing the cache.
func (c claimClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return c.reader.Get(ctx, key, obj, opts...)
}
