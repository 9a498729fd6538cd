package keystoneapplicationcredential

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
// its current generation, one at a time, and lists them in
// status.consumers and orderhub_consumers_pending (docs/reference/consumers.md). A failure is a Warning
// event and leaves the last list: the delivery itself stands.
func (p *pass) rollConsumers(ctx context.Context) {
	res, err := consumers.Sync(ctx, p.oc, consumers.Target{Namespace: p.ac.Namespace,
		Secret: orders.SecretName(p.ac.Name), Kind: p.ord.Kind, Order: p.ac.Name, Generation: p.st.CredentialGeneration})
	if err != nil {
		logf.FromContext(ctx).Error(err, "roll the consumers of the delivered Secret")
		p.event(corev1.EventTypeWarning, consumers.EventFailed, "Rollout", "%v", err)
		return
	}
	p.st.Consumers = res.Statuses
	orders.RecordConsumersPending(p.ord, res.Pending)
	if res.Stamped != "" {
		p.event(corev1.EventTypeNormal, consumers.EventStamped, "Rollout", "%s stamped with credential generation %d",
			res.Stamped, p.st.CredentialGeneration)
	}
}

// consumerOrder maps a Secret a workload reads to the order delivering it as
// <name>-credentials in its namespace.
func consumerOrder(name multicluster.ClusterName, namespace, secret string) (mcreconcile.Request, bool) {
	order, ok := orders.OrderOfSecretName(secret)
	if !ok {
		return mcreconcile.Request{}, false
	}
	return orders.Request(orders.Order{Kind: orders.KindKeystoneApplicationCredential, Cluster: string(name),
		Namespace: namespace, Name: order}), true
}
