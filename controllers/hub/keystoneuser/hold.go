package keystoneuser

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

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

// forget drops the order's verification, refusal and at-rest memories
// (orders.Teardown.Forget).
func (r *Reconciler) forget(p *orders.Pass[orderObj]) {
	r.forgetVerified(p.Order)
	r.refused.Delete(verifiedKey(p.Order))
	r.rest.Forget(verifiedKey(p.Order))
}
