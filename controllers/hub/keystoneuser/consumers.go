package keystoneuser

import (
	"context"

	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// rollConsumers is the consumers step for the delivered Secret at password
// generation gen (docs/reference/consumers.md).
func (p *pass) rollConsumers(ctx context.Context, gen int64) {
	consumers.Step{Client: p.oc, Generation: "password generation", Status: &p.st.Consumers,
		Target: consumers.Target{Namespace: p.ku.Namespace, Secret: orders.SecretName(p.ku.Name), Kind: p.o.Kind,
			Order: p.ku.Name, Generation: gen},
		Pending: func(n int) { orders.RecordConsumersPending(p.o, n) },
		Event: func(typ, reason, format string, args ...any) {
			p.r.event(p.o, p.ku, typ, reason, format, args...)
		}}.Run(ctx)
}

// consumerOrder maps a Secret a workload reads to the KeystoneUser delivering it.
var consumerOrder = orders.DeliveringOrder(orders.KindKeystoneUser)
