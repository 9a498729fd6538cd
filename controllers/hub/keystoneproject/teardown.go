package keystoneproject

import (
	"context"
	"fmt"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// childSets are the order's children in the plane's namespace: the managed
// Project and its probe, and the Domain import.
var childSets = []orders.ChildSet{
	{List: func() client.ObjectList { return &orcv1alpha1.ProjectList{} }},
	{List: func() client.ObjectList { return &orcv1alpha1.DomainList{} }},
}

// teardown is the KeystoneProject deletion path
// (docs/reference/keystoneproject.md, "Deletion Semantics").
func (r *Reconciler) teardown() orders.Teardown[orderObj] {
	return orders.Teardown[orderObj]{
		Finalizer:   c5c3v1alpha1.FinalizerKeystoneProjectTeardown,
		Hold:        r.hold,
		Phases:      []orders.Phase[orderObj]{{Sets: childSets}},
		WaitRequeue: NotReadyRequeue,
		Waiting: func(p *orders.Pass[orderObj], left int, err error) []metav1.Condition {
			return Conditions(DeletingCondition(left, err, p.Obj.Generation), p.Obj.Generation)
		},
		Release: func(ctx context.Context, p *orders.Pass[orderObj]) error {
			claim := projectClaim(EffectiveProjectName(p.Obj), claimDomain(p.Obj, p.Plane))
			return orders.Release(ctx, r.Claims, p.PlaneNamespace, claim, p.Order)
		},
	}
}

// hold holds the deletion while a KeystoneApplicationCredential of the
// namespace references the project, or, with the plane, a KeystoneUser
// names it in spec.defaultProjectRef. Their events bring the order back
// (deletingProjectOf).
func (r *Reconciler) hold(ctx context.Context, p *orders.Pass[orderObj]) (orders.Hold, error) {
	kp := p.Obj
	requeue := r.heldRequeue
	held, err := orders.HeldBy(ctx, p.Client, kp.Namespace, orders.CredentialRefs{Project: kp.Name})
	if err != nil || held.Holding() {
		return orders.Hold{Holding: held.Holding(), Requeue: requeue,
			Conditions: Conditions(HeldCondition(held, kp.Name, kp.Generation), kp.Generation)}, err
	}
	if p.Plane == nil {
		return orders.Hold{}, nil
	}
	var users c5c3v1alpha1.KeystoneUserList
	if err := p.Client.List(ctx, &users, client.InNamespace(kp.Namespace),
		client.MatchingFields{orders.IndexDefaultProjectRef: kp.Name}); err != nil {
		return orders.Hold{}, fmt.Errorf("list KeystoneUsers in %s: %w", kp.Namespace, err)
	}
	byUsers := UsersReferencing(kp.Name, users.Items)
	return orders.Hold{Holding: len(byUsers) > 0, Requeue: requeue,
		Conditions: Conditions(HeldByUsersCondition(byUsers, kp.Name, kp.Generation), kp.Generation)}, nil
}

// claimDomain is the domain of the order's claim: EffectiveDomain, or with
// the plane gone spec.domainName or controlplane.DefaultAdminDomain.
func claimDomain(kp *c5c3v1alpha1.KeystoneProject, cp *c5c3v1alpha1.ControlPlane) string {
	if cp != nil {
		return EffectiveDomain(kp, cp)
	}
	if kp.Spec.DomainName != "" {
		return string(kp.Spec.DomainName)
	}
	return controlplane.DefaultAdminDomain
}
