package keystoneproject

import "github.com/c5c3/orderhub/controllers/hub/orders"

// ClaimKind is the orders.Claim kind of a Keystone project name.
const ClaimKind = "project"

// projectClaim is the claim on the effective Keystone project name in domain.
func projectClaim(name, domain string) orders.Claim {
	return orders.Claim{Kind: ClaimKind, Domain: domain, Name: name}
}
