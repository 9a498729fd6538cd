package keystoneapplicationcredential

import (
	"context"

	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// rollConsumers is the consumers step for the delivered Secret at its current
// generation (docs/reference/consumers.md).
func (p *pass) rollConsumers(ctx context.Context) {
	consumers.Step{Client: p.oc, Generation: "credential generation", Status: &p.st.Consumers,
		Target: consumers.Target{Namespace: p.ac.Namespace, Secret: orders.SecretName(p.ac.Name), Kind: p.ord.Kind,
			Order: p.ac.Name, Generation: p.st.CredentialGeneration},
		Pending: func(n int) { orders.RecordConsumersPending(p.ord, n) },
		Event: func(typ, reason, format string, args ...any) {
			p.event(typ, reason, "Rollout", format, args...)
		}}.Run(ctx)
}

// consumerOrder maps a Secret a workload reads to the
// KeystoneApplicationCredential delivering it.
var consumerOrder = orders.DeliveringOrder(orders.KindKeystoneApplicationCredential)
