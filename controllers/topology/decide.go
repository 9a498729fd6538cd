package topology

import (
	"fmt"
	"time"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// This file holds the topology controller's pure decisions for the shared
// loop (internal/osh/reconcile): whose resource it is and how long a failure
// waits. They take everything they need as arguments and are table-tested.

// ownership answers "is this resource mine?" from its rabbitmqClusterReference
// (docs/topology.md, "Which resources are served"). It returns ""
// when the resource is served here and otherwise why it is not.
//
// clusterName is the served cluster's name; ownNamespace is the controller's
// namespace, or "" when it watches several, in which case a reference must
// not leave the resource's own namespace.
func ownership(ref rmqv1.RabbitmqClusterReference, resourceNamespace, clusterName, ownNamespace string) string {
	switch {
	case ref.ConnectionSecret != nil:
		return fmt.Sprintf("rabbitmqClusterReference.connectionSecret %q is set; a controller resolving connection secrets serves it", ref.ConnectionSecret.Name)
	case ref.Name != clusterName:
		return fmt.Sprintf("rabbitmqClusterReference.name %q is not this controller's cluster %q", ref.Name, clusterName)
	case ownNamespace != "" && resourceNamespace != ownNamespace:
		return fmt.Sprintf("resource namespace %q is not this controller's namespace %q", resourceNamespace, ownNamespace)
	case ownNamespace != "" && ref.Namespace != "" && ref.Namespace != ownNamespace:
		return fmt.Sprintf("rabbitmqClusterReference.namespace %q is not this controller's namespace %q", ref.Namespace, ownNamespace)
	case ownNamespace == "" && ref.Namespace != "" && ref.Namespace != resourceNamespace:
		return fmt.Sprintf("rabbitmqClusterReference.namespace %q is not the resource's namespace %q", ref.Namespace, resourceNamespace)
	}
	return ""
}

// backoff is the wait after the n-th consecutive failure (n ≥ 1; less
// counts as 1): base doubled per failure, capped at max.
func backoff(n int, base, max time.Duration) time.Duration {
	d := base
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d
}

// dependencyRetries is how many consecutive failures of one desired state
// the fast dependency retry covers in full (docs/topology.md,
// "Reconciliation"): a dependency applied in the same batch is declared
// within them. A refusal that outlasts them (the source exchange of a
// Binding that nothing declares, a vhost that stays gone) backs off
// exponentially from there.
const dependencyRetries = 5

// retryDelay is the wait after the n-th consecutive failure (n ≥ 1): the
// backoff (base doubled per failure, at most max). A refusal for a missing
// dependency waits at most depRetry for the first dependencyRetries
// failures, then at most depRetry doubled per further failure, so it
// reaches max too.
func retryDelay(n int, missing bool, base, max, depRetry time.Duration) time.Duration {
	d := backoff(n, base, max)
	if !missing {
		return d
	}
	return min(d, backoff(n-dependencyRetries+1, depRetry, max))
}
