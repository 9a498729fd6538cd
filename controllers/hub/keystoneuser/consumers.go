package keystoneuser

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// rollConsumers rolls the opted-in workloads reading the delivered Secret to
// password generation gen, one at a time, and lists them in
// status.consumers and orderhub_consumers_pending (docs/reference/consumers.md). A failure is a Warning
// event and leaves the last list: the delivery itself stands.
func (p *pass) rollConsumers(ctx context.Context, gen int64) {
	res, err := consumers.Sync(ctx, p.oc, consumers.Target{Namespace: p.ku.Namespace,
		Secret: orders.SecretName(p.ku.Name), Kind: p.o.Kind, Order: p.ku.Name, Generation: gen})
	if err != nil {
		logf.FromContext(ctx).Error(err, "roll the consumers of the delivered Secret")
		p.r.event(p.o, p.ku, corev1.EventTypeWarning, consumers.EventFailed, "%v", err)
		return
	}
	p.st.Consumers = res.Statuses
	orders.RecordConsumersPending(p.o, res.Pending)
	if res.Stamped != "" {
		p.r.event(p.o, p.ku, corev1.EventTypeNormal, consumers.EventStamped, "%s stamped with password generation %d",
			res.Stamped, gen)
	}
}

// consumerOrder maps a Secret a workload reads to the order delivering it as
// <name>-credentials in its namespace.
func consumerOrder(name multicluster.ClusterName, namespace, secret string) (mcreconcile.Request, bool) {
	order, ok := orders.OrderOfSecretName(secret)
	if !ok {
		return mcreconcile.Request{}, false
	}
	return orders.Request(orders.Order{Kind: orders.KindKeystoneUser, Cluster: string(name),
		Namespace: namespace, Name: order}), true
}
