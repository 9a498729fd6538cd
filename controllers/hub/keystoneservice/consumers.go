package keystoneservice

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// rollConsumers is the consumers step for the consumer Secret ESO synced to
// password generation gen (docs/reference/consumers.md).
func (p *accountPass) rollConsumers(ctx context.Context, gen int64) {
	consumers.Step{Client: p.r.client, Generation: "password generation", Status: &p.st.Consumers,
		Target: consumers.Target{Namespace: p.ks.Namespace, Secret: ConsumerSecretName(p.ks), Kind: OwnerKind,
			Order: p.ks.Name, Generation: gen},
		Pending: func(n int) { orders.RecordConsumersPending(ClaimHolder(p.ks), n) },
		Event: func(typ, reason, format string, args ...any) {
			p.r.recorder.Eventf(p.ks, nil, typ, reason, "Rollout", format, args...)
		}}.Run(ctx)
}

// consumerOrder maps a Secret a workload reads to the KeystoneService whose
// consumer Secret it is by name (ConsumerSecretName).
func consumerOrder(namespace, secret string) (reconcile.Request, bool) {
	name, ok := orders.OrderOfSecretName(secret)
	if !ok {
		return reconcile.Request{}, false
	}
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}}, true
}
