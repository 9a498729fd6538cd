package consumers

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// OrderOf maps a Secret a workload reads, on cluster name, to the request of
// the order delivering it; ok is false for a Secret no order of the kind
// delivers.
type OrderOf func(name multicluster.ClusterName, namespace, secret string) (mcreconcile.Request, bool)

// Enqueue maps a Deployment, StatefulSet or DaemonSet event to the orders
// whose delivered Secrets its pod template reads (SecretsOf), so an order
// comes back when a consumer's rollout progresses.
func Enqueue(orderOf OrderOf) mchandler.TypedEventHandlerFunc[client.Object, mcreconcile.Request] {
	return func(name multicluster.ClusterName, _ cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
		return mchandler.TypedEnqueueRequestsFromMapFuncWithClusterPreservation(
			func(_ context.Context, o client.Object) []mcreconcile.Request {
				w, ok := workloadOf(o)
				if !ok {
					return nil
				}
				var reqs []mcreconcile.Request
				for _, s := range SecretsOf(w.template) {
					if r, ok := orderOf(name, o.GetNamespace(), s); ok {
						reqs = append(reqs, r)
					}
				}
				return reqs
			})
	}
}
