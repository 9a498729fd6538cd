package keystoneuser

import (
	"context"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/eso"
)

// childSets are the order's children in the plane's namespace, in the
// order the teardown deletes them: the PushSecret (ESO removes the OpenBao
// path), the K-ORC User (K-ORC deletes the Keystone user), the Secrets
// (password generations, source), the probe (a User too) and the Domain
// import. The delivered Secret goes with the order through its owner
// reference (garbage collector).
var childSets = []orders.ChildSet{
	{List: func() client.ObjectList { return eso.NewMetadataList(eso.PushSecretGVK) }},
	{List: func() client.ObjectList { return &orcv1alpha1.UserList{} }},
	{List: func() client.ObjectList { return &corev1.SecretList{} }},
	{List: func() client.ObjectList { return &orcv1alpha1.DomainList{} }},
}

// teardown is the KeystoneUser deletion path
// (docs/reference/keystoneuser.md, "Deletion Semantics"); a frozen order is
// torn down all the same.
func (r *Reconciler) teardown() orders.Teardown[orderObj] {
	return orders.Teardown[orderObj]{
		Finalizer:   c5c3v1alpha1.FinalizerKeystoneUserTeardown,
		Hold:        r.hold,
		Phases:      []orders.Phase[orderObj]{{Sets: childSets}},
		WaitRequeue: NotReadyRequeue,
		Forget: func(p *orders.Pass[orderObj]) {
			r.forgetVerified(p.Order)
			r.refused.Delete(verifiedKey(p.Order))
			r.rest.Forget(verifiedKey(p.Order))
		},
		Release: func(ctx context.Context, p *orders.Pass[orderObj]) error {
			claim := userClaim(EffectiveUserName(p.Obj), claimDomain(p.Obj, p.Plane))
			return orders.Release(ctx, r.Claims, p.PlaneNamespace, claim, p.Order)
		},
	}
}

// hold holds the deletion while a KeystoneApplicationCredential references
// the user (UserReady=False/ReferencedByApplicationCredentials); the
// delivered Secret's condition is kept, as the Secret is untouched.
func (r *Reconciler) hold(ctx context.Context, p *orders.Pass[orderObj]) (orders.Hold, error) {
	ku := p.Obj
	held, err := orders.HeldBy(ctx, p.Client, ku.Namespace, orders.CredentialRefs{User: ku.Name})
	if err != nil || !held.Holding() {
		return orders.Hold{}, err
	}
	dc := DeliveryCondition(Observation{Gate: conditions.Gate{Reason: c5c3v1alpha1.ReasonReferencedByApplicationCredentials,
		Message: held.Message(orders.KindKeystoneUser, ku.Name)}}, ku.Generation)
	if c := meta.FindStatusCondition(ku.Status.Conditions, c5c3v1alpha1.ConditionDeliveryReady); c != nil {
		dc = *c
	}
	return orders.Hold{Holding: true, Requeue: NotReadyRequeue,
		Conditions: Conditions(HeldCondition(held, ku.Name, ku.Generation), dc, ku.Generation)}, nil
}

// claimDomain is the domain of the order's claim: EffectiveDomain, or with
// the plane gone spec.domainName or controlplane.DefaultAdminDomain.
func claimDomain(ku *c5c3v1alpha1.KeystoneUser, cp *c5c3v1alpha1.ControlPlane) string {
	if cp != nil {
		return EffectiveDomain(ku, cp)
	}
	if ku.Spec.DomainName != "" {
		return string(ku.Spec.DomainName)
	}
	return controlplane.DefaultAdminDomain
}
