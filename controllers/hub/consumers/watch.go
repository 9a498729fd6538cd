package consumers

import (
	"context"
	"reflect"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
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
				var reqs []mcreconcile.Request
				for _, s := range secretsRead(o) {
					if r, ok := orderOf(name, o.GetNamespace(), s); ok {
						reqs = append(reqs, r)
					}
				}
				return reqs
			})
	}
}

// EnqueueLocal is Enqueue for a controller of the management cluster alone
// (controller-runtime's single-cluster builder): orderOf maps a Secret of
// namespace to the order delivering it.
func EnqueueLocal(orderOf func(namespace, secret string) (reconcile.Request, bool)) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		var reqs []reconcile.Request
		for _, s := range secretsRead(o) {
			if r, ok := orderOf(o.GetNamespace(), s); ok {
				reqs = append(reqs, r)
			}
		}
		return reqs
	})
}

// secretsRead is SecretsOf the pod template of a Deployment, StatefulSet or
// DaemonSet, nil for another object.
func secretsRead(o client.Object) []string {
	w, ok := workloadOf(o)
	if !ok {
		return nil
	}
	return SecretsOf(w.template)
}

// Changed passes a workload's creation and deletion, and an update that
// changes what Sync reads: its generation, deletion, opt-in, stamps, the
// Secrets it reads, or whether its rollout is complete. The status updates of
// a rollout in progress are dropped, so scaling or pod readiness elsewhere
// does not wake the orders whose Secrets a workload reads.
var Changed = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	return !reflect.DeepEqual(viewOf(e.ObjectOld), viewOf(e.ObjectNew))
}}

// view is what Sync reads of a workload.
type view struct {
	generation          int64
	deleting, rolledOut bool
	optIn               string
	stamps              map[string]string
	secrets             []string
}

func viewOf(o client.Object) view {
	w, ok := workloadOf(o)
	if !ok {
		return view{}
	}
	return view{generation: o.GetGeneration(), deleting: !o.GetDeletionTimestamp().IsZero(), rolledOut: w.rolledOut,
		optIn: o.GetAnnotations()[c5c3v1alpha1.AnnotationRolloutOnCredentialChange], stamps: stamps(w.template.Annotations),
		secrets: SecretsOf(w.template)}
}
