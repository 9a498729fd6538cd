package keystoneservice

import (
	"context"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;delete

// UserClaimKind is the orders.Claim kind of the account's Keystone user
// name. It is the kind the KeystoneUser order claims its user name under
// (keystoneuser.ClaimKind), so a KeystoneService account and a KeystoneUser
// of one name in one domain contend for one claim and only the holder goes
// on (docs/reference/keystoneservice.md, "Collision and adoption").
const UserClaimKind = "user"

// AccountClaim is the claim on the account's Keystone user name
// (KeystoneService.EffectiveUserName) in its domain: EffectiveDomain with
// the plane, or, with the plane gone (cp nil), spec.account.domainName or
// controlplane.DefaultAdminDomain. ok is false without an account block.
func AccountClaim(ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) (orders.Claim, bool) {
	if ks.Spec.Account == nil {
		return orders.Claim{}, false
	}
	domain := controlplane.DefaultAdminDomain
	switch {
	case cp != nil:
		domain = EffectiveDomain(ks, cp)
	case ks.Spec.Account.DomainName != "":
		domain = string(ks.Spec.Account.DomainName)
	}
	return orders.Claim{Kind: UserClaimKind, Domain: domain, Name: ks.EffectiveUserName()}, true
}

// ClaimHolder is ks as a claim holder: kind KeystoneService on the
// management cluster (the holder identity orders.DescribeHolder renders).
func ClaimHolder(ks *c5c3v1alpha1.KeystoneService) orders.Order {
	return orders.Order{Kind: OwnerKind, Cluster: orders.ManagementCluster, Namespace: ks.Namespace, Name: ks.Name}
}

// acquireAccountClaim takes (or confirms) the claim on the account's user
// name in the plane's namespace: "" when ks holds it, else the holder for
// the collision message.
func (r *Reconciler) acquireAccountClaim(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) (string, error) {
	claim, ok := AccountClaim(ks, cp)
	if !ok {
		return "", nil
	}
	return orders.Acquire(ctx, r.claims(), cp.Namespace, claim, ClaimHolder(ks))
}

// ReleaseAccountClaim releases ks's claim on its account's user name (a
// claim another order holds, or none, is left alone). The teardown calls it
// last, once every child (the managed K-ORC User among them, and with it the
// Keystone user) is gone; cp may be nil (the plane is gone). Errors: a
// Kubernetes read or delete failure.
func (r *Reconciler) ReleaseAccountClaim(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) error {
	claim, ok := AccountClaim(ks, cp)
	if !ok {
		return nil
	}
	return orders.Release(ctx, r.claims(), ks.ControlPlaneNamespace(), claim, ClaimHolder(ks))
}

// claims is the claim client: writes through the reconciler's client,
// reads through the manager's API reader (orders.ClaimClient: the hub's
// RBAC on leases is get, create and delete, so a cached read, which starts
// an informer needing list and watch, is not possible).
func (r *Reconciler) claims() orders.ClaimClient {
	return orders.ClaimClient{Client: r.client, Reader: r.reader}
}
