package keystoneuser

import "github.com/c5c3/orderhub/controllers/hub/orders"

// ClaimKind is the orders.Claim kind of a Keystone user name.
const ClaimKind = "user"

// userClaim is the claim on the effective Keystone user name in domain.
func userClaim(name, domain string) orders.Claim {
	return orders.Claim{Kind: ClaimKind, Domain: domain, Name: name}
}
