package keystoneproject

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

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

// deleting is the order's conditions while its children are deleted
// (orders.Teardown.Waiting).
func deleting(p *orders.Pass[orderObj], left int, err error) []metav1.Condition {
	return Conditions(DeletingCondition(left, err, p.Obj.Generation), p.Obj.Generation)
}
