package orders

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/clusters"
)

// Request is the multicluster reconcile request of o.
func Request(o Order) mcreconcile.Request {
	return mcreconcile.Request{ClusterName: multicluster.ClusterName(o.Cluster),
		Request: reconcile.Request{NamespacedName: types.NamespacedName{Namespace: o.Namespace, Name: o.Name}}}
}

// OrderOf is the order a reconcile request of kind names.
func OrderOf(kind string, req mcreconcile.Request) Order {
	return Order{Kind: kind, Cluster: string(req.ClusterName), Namespace: req.Namespace, Name: req.Name}
}

// EnqueueOrderOfChild maps a management-cluster child to the order its labels
// name, on whatever cluster it lives. Register it with the local cluster only
// (LocalOnly).
func EnqueueOrderOfChild(kind string) mchandler.TypedEventHandlerFunc[client.Object, mcreconcile.Request] {
	return func(multicluster.ClusterName, cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
		return mchandler.TypedEnqueueRequestsFromMapFuncWithClusterPreservation(
			func(_ context.Context, obj client.Object) []mcreconcile.Request {
				if o, ok := OrderOfLabels(kind, obj.GetLabels()); ok {
					return []mcreconcile.Request{Request(o)}
				}
				return nil
			})
	}
}

// EnqueueOrdersOfPlane maps a ControlPlane to every order of kind (list
// type L, items T) on every engaged cluster whose controlPlaneRef (refOf,
// the kind's Kind.PlaneRef) resolves to it; an unlistable cluster is skipped
// (RequeueTarget). Register it like EnqueueOrderOfChild.
func EnqueueOrdersOfPlane[L any, LP interface {
	*L
	client.ObjectList
}, T client.Object](hub *clusters.Hub, kind string, refOf func(T) c5c3v1alpha1.ControlPlaneRefSpec) mchandler.TypedEventHandlerFunc[client.Object, mcreconcile.Request] {
	return func(multicluster.ClusterName, cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
		return mchandler.TypedEnqueueRequestsFromMapFuncWithClusterPreservation(
			func(ctx context.Context, plane client.Object) []mcreconcile.Request {
				var reqs []mcreconcile.Request
				names := append([]multicluster.ClusterName{clusters.LocalCluster}, hub.TargetClusters()...)
				for _, name := range names {
					c, err := hub.Client(ctx, name)
					if err != nil {
						continue
					}
					list := LP(new(L))
					if err := c.List(ctx, list); err != nil {
						logf.FromContext(ctx).V(1).Info("cannot list orders for a ControlPlane event", "kind", kind, "cluster", name, "error", err.Error())
						continue
					}
					items, err := meta.ExtractList(list)
					if err != nil {
						continue
					}
					for _, it := range items {
						obj, ok := it.(T)
						if !ok {
							continue
						}
						if ns, n := PlaneKey(refOf(obj), obj.GetNamespace()); ns == plane.GetNamespace() && n == plane.GetName() {
							reqs = append(reqs, Request(Order{Kind: kind, Cluster: string(name), Namespace: obj.GetNamespace(), Name: obj.GetName()}))
						}
					}
				}
				return reqs
			})
	}
}

// DeliveringOrder maps a Secret a workload reads on cluster name to the order
// of kind delivering it as <name>-credentials in its namespace (the OrderOf
// of controllers/hub/consumers' Enqueue).
func DeliveringOrder(kind string) func(name multicluster.ClusterName, namespace, secret string) (mcreconcile.Request, bool) {
	return func(name multicluster.ClusterName, namespace, secret string) (mcreconcile.Request, bool) {
		order, ok := OrderOfSecretName(secret)
		if !ok {
			return mcreconcile.Request{}, false
		}
		return Request(Order{Kind: kind, Cluster: string(name), Namespace: namespace, Name: order}), true
	}
}
