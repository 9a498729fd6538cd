package keystoneservice

import (
	"context"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;delete

// UserClaimKind is the claim kind of the account's user name, shared with
// keystoneuser.ClaimKind (docs/reference/keystoneservice.md, "Collision and adoption").
const UserClaimKind = "user"

// ProjectClaimKind is the claim kind of a created project's name, shared with
// keystoneproject.ClaimKind.
const ProjectClaimKind = "project"

// AccountClaim is the claim on the account's user name in EffectiveDomain; ok is
// false without an account block.
func AccountClaim(ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) (orders.Claim, bool) {
	if ks.Spec.Account == nil {
		return orders.Claim{}, false
	}
	return orders.Claim{Kind: UserClaimKind, Domain: EffectiveDomain(ks, cp), Name: ks.EffectiveUserName()}, true
}

// AccountProjectClaim is the claim on a created project's name in
// EffectiveDomain; ok is false without an account block or with project.create false.
func AccountProjectClaim(ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) (orders.Claim, bool) {
	if ks.Spec.Account == nil || !ks.Spec.Account.Project.Create {
		return orders.Claim{}, false
	}
	return orders.Claim{Kind: ProjectClaimKind, Domain: EffectiveDomain(ks, cp), Name: string(ks.Spec.Account.Project.Name)}, true
}

// ClaimHolder is ks as a claim holder (kind KeystoneService, management cluster).
func ClaimHolder(ks *c5c3v1alpha1.KeystoneService) orders.Order {
	return orders.Order{Kind: OwnerKind, Cluster: orders.ManagementCluster, Namespace: ks.Namespace, Name: ks.Name}
}

// claimOf is AccountClaim or AccountProjectClaim.
type claimOf func(*c5c3v1alpha1.KeystoneService, *c5c3v1alpha1.ControlPlane) (orders.Claim, bool)

// acquireClaim takes the claim of in the plane's namespace: "" when ks holds
// it or has none, else the holder.
func (r *Reconciler) acquireClaim(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane, of claimOf) (string, error) {
	claim, ok := of(ks, cp)
	if !ok {
		return "", nil
	}
	return orders.Acquire(ctx, r.claims(), cp.Namespace, claim, ClaimHolder(ks))
}

// ReleaseAccountClaim releases ks's claims (a claim another order holds is
// left alone); the teardown calls it last, cp may be nil. Errors: a
// Kubernetes read or delete failure.
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

// claims writes through the client and reads uncached (orders.ClaimClient:
// the lease RBAC has no list or watch).
func (r *Reconciler) claims() orders.ClaimClient {
	return orders.ClaimClient{Client: r.client, Reader: r.reader}
}

// releaseClaims is ReleaseAccountClaim as the teardown's last step
// (orders.Teardown.Release).
func (r *Reconciler) releaseClaims(ctx context.Context, p *orders.Pass[ksObj]) error {
	return r.ReleaseAccountClaim(ctx, p.Obj, p.Plane)
}
