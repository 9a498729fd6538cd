package topology

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// A Binding applied in one batch with its queue or exchange would reach the
// broker before them and be answered 404, costing a retry and one more
// request per binding. A Binding that has never been declared therefore
// waits, without a request or a status write, while a Queue or Exchange
// resource in its namespace, served by this controller, declares the object
// it names and has not reported on its current generation yet
// (docs/topology.md, "Reconciliation"). The wait ends when that resource
// reports Ready (True or False: a failure there is the broker's to explain
// to the Binding), is deleted, or the Binding is older than
// Options.DependencyWait.

// Field indexes of the broker objects Queues, Exchanges and Bindings name,
// as "<kind> NUL <vhost> NUL <name>" (kind "q" or "e"; NUL because vhost and
// object names may hold "/"), so the dependency of a Binding and the
// Bindings of a Queue or Exchange are found without a scan.
const (
	indexDeclares = ".orderhub.declares"
	indexNeeds    = ".orderhub.needs"
)

// fieldIndex is one field index: the kind it is on, its key and its values.
type fieldIndex struct {
	obj client.Object
	key string
	fn  client.IndexerFunc
}

// dependencyIndexes are the indexes the dependency wait reads: the manager
// registers them (SetupWithManager) and the unit tests build their fake client with them.
var dependencyIndexes = []fieldIndex{
	{&rmqv1.Queue{}, indexDeclares, func(o client.Object) []string { return []string{declaresKey(o)} }},
	{&rmqv1.Exchange{}, indexDeclares, func(o client.Object) []string { return []string{declaresKey(o)} }},
	{&rmqv1.Binding{}, indexNeeds, func(o client.Object) []string { return bindingNeeds(o.(*rmqv1.Binding)) }},
}

// brokerKey names one queue or exchange in the broker; kind is
// destinationQueue or destinationExchange.
func brokerKey(kind, vhost, name string) string {
	k := "e"
	if kind == destinationQueue {
		k = "q"
	}
	return k + "\x00" + vhostOrRoot(vhost) + "\x00" + name
}

// bindingNeeds is what a Binding needs declared first: its source exchange
// (unless it is the default exchange, "") and its destination.
func bindingNeeds(b *rmqv1.Binding) []string {
	var keys []string
	if b.Spec.Source != "" {
		keys = append(keys, brokerKey(destinationExchange, b.Spec.Vhost, b.Spec.Source))
	}
	if b.Spec.Destination != "" {
		keys = append(keys, brokerKey(destinationType(b.Spec), b.Spec.Vhost, b.Spec.Destination))
	}
	return keys
}

// declaresKey is the broker object a Queue or Exchange declares, "" for
// other kinds.
func declaresKey(o client.Object) string {
	switch d := o.(type) {
	case *rmqv1.Queue:
		return brokerKey(destinationQueue, d.Spec.Vhost, d.Spec.Name)
	case *rmqv1.Exchange:
		return brokerKey(destinationExchange, d.Spec.Vhost, d.Spec.Name)
	}
	return ""
}

// undeclared reports whether dep, a resource declaring what a Binding of the
// same namespace with reference ref needs, is one the Binding should wait
// for: it names the same cluster (an empty reference namespace meaning the
// resource's own), is not being deleted, and has no Ready condition for its
// current generation.
func undeclared(dep object, ref rmqv1.RabbitmqClusterReference) bool {
	if !dep.GetDeletionTimestamp().IsZero() || !sameCluster(dep.ClusterReference(), ref, dep.GetNamespace()) {
		return false
	}
	c := findReady(dep.TopologyStatus())
	return c == nil || c.ObservedGeneration < dep.GetGeneration()
}

// sameCluster reports whether two references of resources in namespace ns
// name one cluster.
func sameCluster(a, b rmqv1.RabbitmqClusterReference, ns string) bool {
	for _, r := range []*rmqv1.RabbitmqClusterReference{&a, &b} {
		if r.Namespace == "" {
			r.Namespace = ns
		}
	}
	return equality.Semantic.DeepEqual(a, b)
}

// waitsForDependency decides whether a resource without a Ready condition,
// created at created, waits instead of declaring: pending (the resource it
// waits for, "" for none) is set and it is younger than limit. It returns
// how long until the wait ends at the latest.
func waitsForDependency(created time.Time, pending string, now time.Time, limit time.Duration) (time.Duration, bool) {
	if pending == "" {
		return 0, false
	}
	left := created.Add(limit).Sub(now)
	return left, left > 0
}

// pendingDependency names the first Queue or Exchange resource in b's
// namespace that declares what b needs and is undeclared, "" when none is.
// It reads the controller's cache only. Errors: a failed cache list.
func pendingDependency(ctx context.Context, kube client.Reader, b *rmqv1.Binding) (string, error) {
	for _, key := range bindingNeeds(b) {
		var deps []object
		if key[0] == 'q' {
			var l rmqv1.QueueList
			if err := kube.List(ctx, &l, client.InNamespace(b.Namespace), client.MatchingFields{indexDeclares: key}); err != nil {
				return "", err
			}
			for i := range l.Items {
				deps = append(deps, &l.Items[i])
			}
		} else {
			var l rmqv1.ExchangeList
			if err := kube.List(ctx, &l, client.InNamespace(b.Namespace), client.MatchingFields{indexDeclares: key}); err != nil {
				return "", err
			}
			for i := range l.Items {
				deps = append(deps, &l.Items[i])
			}
		}
		for _, d := range deps {
			if undeclared(d, b.Spec.RabbitmqClusterReference) {
				return fmt.Sprintf("%s %s", kindOf(d), d.GetName()), nil
			}
		}
	}
	return "", nil
}

func kindOf(o client.Object) string {
	if _, ok := o.(*rmqv1.Queue); ok {
		return "Queue"
	}
	return "Exchange"
}

// bindingsOfDependency maps a Queue or Exchange to the Bindings in its
// namespace that need what it declares.
func bindingsOfDependency(kube client.Reader) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		key := declaresKey(o)
		if key == "" {
			return nil
		}
		var l rmqv1.BindingList
		if err := kube.List(ctx, &l, client.InNamespace(o.GetNamespace()), client.MatchingFields{indexNeeds: key}); err != nil {
			return nil
		}
		out := make([]reconcile.Request, 0, len(l.Items))
		for i := range l.Items {
			if findReady(&l.Items[i].Status) == nil {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&l.Items[i])})
			}
		}
		return out
	}
}

// readyReported passes the events that can end a Binding's wait: a
// dependency's Ready condition appearing or reaching a new generation, and
// its deletion. (Another change, such as a reference moved to another
// cluster, ends the wait at the Binding's next poll, DependencyRetry.)
var readyReported = deletedOr(func(e event.UpdateEvent) bool {
	oldO, ok1 := e.ObjectOld.(object)
	newO, ok2 := e.ObjectNew.(object)
	if !ok1 || !ok2 {
		return false
	}
	return undeclared(oldO, oldO.ClusterReference()) != undeclared(newO, newO.ClusterReference()) ||
		!newO.GetDeletionTimestamp().IsZero()
})

// deletedOr passes every delete event and the update events update passes;
// no create or generic event.
func deletedOr(update func(event.UpdateEvent) bool) predicate.Funcs {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return true },
		UpdateFunc:  update,
	}
}
