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

// ProjectClaimKind is the orders.Claim kind of the account's Keystone
// project name when spec.account.project.create is true. It is the kind the
// KeystoneProject order claims its project name under
// (keystoneproject.ClaimKind), so a registration that creates its project
// and a KeystoneProject of one name in one domain contend for one claim
// (docs/reference/keystoneservice.md, "Collision and adoption").
const ProjectClaimKind = "project"

// AccountClaim is the claim on the account's Keystone user name
// (KeystoneService.EffectiveUserName) in its domain: EffectiveDomain with
// the plane, or, with the plane gone (cp nil), spec.account.domainName or
// controlplane.DefaultAdminDomain. ok is false without an account block.
func AccountClaim(ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) (orders.Claim, bool) {
	if ks.Spec.Account == nil {
		return orders.Claim{}, false
	}
	return orders.Claim{Kind: UserClaimKind, Domain: claimDomain(ks, cp), Name: ks.EffectiveUserName()}, true
}

// AccountProjectClaim is the claim on the account's project name
// (spec.account.project.name) in the account's domain, as AccountClaim
// resolves it. ok is false without an account block, and when the
// registration references its project (project.create false): only a
// registration that creates (and so deletes) a project claims its name.
func AccountProjectClaim(ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) (orders.Claim, bool) {
	if ks.Spec.Account == nil || !ks.Spec.Account.Project.Create {
		return orders.Claim{}, false
	}
	return orders.Claim{Kind: ProjectClaimKind, Domain: claimDomain(ks, cp), Name: string(ks.Spec.Account.Project.Name)}, true
}

// claimDomain is the account's domain for its claims: EffectiveDomain with
// the plane, or, with the plane gone (cp nil), spec.account.domainName or
// controlplane.DefaultAdminDomain. ks must have an account block.
func claimDomain(ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) string {
	switch {
	case cp != nil:
		return EffectiveDomain(ks, cp)
	case ks.Spec.Account.DomainName != "":
		return string(ks.Spec.Account.DomainName)
	}
	return controlplane.DefaultAdminDomain
}

// ClaimHolder is ks as a claim holder: kind KeystoneService on the
// management cluster (the holder identity orders.DescribeHolder renders).
func ClaimHolder(ks *c5c3v1alpha1.KeystoneService) orders.Order {
	return orders.Order{Kind: OwnerKind, Cluster: orders.ManagementCluster, Namespace: ks.Namespace, Name: ks.Name}
}

// claimOf is one of the account's claims: AccountClaim or
// AccountProjectClaim.
type claimOf func(*c5c3v1alpha1.KeystoneService, *c5c3v1alpha1.ControlPlane) (orders.Claim, bool)

// acquireClaim takes (or confirms) the account's claim of in the plane's
// namespace: "" when ks holds it or has no such claim, else the holder for
// the collision message.
func (r *Reconciler) acquireClaim(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane, of claimOf) (string, error) {
	claim, ok := of(ks, cp)
	if !ok {
		return "", nil
	}
	return orders.Acquire(ctx, r.claims(), cp.Namespace, claim, ClaimHolder(ks))
}

// ReleaseAccountClaim releases ks's claims on its account's user name and,
// with project.create (immutable), on its project name; a claim another
// order holds, or none, is left alone. The teardown calls it last, once
// every child (the managed K-ORC User and Project among them, and with them
// the Keystone user and project) is gone; cp may be nil (the plane is gone).
// Errors: a Kubernetes read or delete failure.
func (r *Reconciler) ReleaseAccountClaim(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) error {
	for _, of := range []claimOf{AccountClaim, AccountProjectClaim} {
		claim, ok := of(ks, cp)
		if !ok {
			continue
		}
		if err := orders.Release(ctx, r.claims(), ks.ControlPlaneNamespace(), claim, ClaimHolder(ks)); err != nil {
			return err
		}
	}
	return nil
}

// claims is the claim client: writes through the reconciler's client,
// reads through the manager's API reader (orders.ClaimClient: the hub's
// RBAC on leases is get, create and delete, so a cached read, which starts
// an informer needing list and watch, is not possible).
func (r *Reconciler) claims() orders.ClaimClient {
	return orders.ClaimClient{Client: r.client, Reader: r.reader}
}
