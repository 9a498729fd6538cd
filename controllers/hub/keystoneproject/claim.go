package keystoneproject

import "github.com/c5c3/orderhub/controllers/hub/orders"

// ClaimKind is the orders.Claim kind of a Keystone project name.
const ClaimKind = "project"

// projectClaim is the claim on the Keystone project name in domain (the
// effective name and domain; breaker H3).
func projectClaim(name, domain string) orders.Claim {
	return orders.Claim{Kind: ClaimKind, Domain: domain, Name: name}
}
