package consumers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// Step is the consumers step of one delivering kind, configured with data:
// run after the kind wrote its Secret, it rolls the opted-in workloads
// reading the Secret (Sync), writes the list to Status, the pending count to
// Pending (orderhub_consumers_pending) and records the events
// (docs/reference/consumers.md). A failure is a Warning event and leaves the
// last list: the delivery itself stands.
type Step struct {
	// Client reads and patches the workloads on the order's cluster.
	Client client.Client
	Target Target
	// Generation names the generation in the ConsumerRolloutStarted message,
	// e.g. "password generation".
	Generation string
	// Status receives the consumers' list (status.consumers).
	Status *[]c5c3v1alpha1.ConsumerStatus
	// Pending records the count of consumers not rolled out yet.
	Pending func(n int)
	// Event records an event on the order.
	Event func(typ, reason, format string, args ...any)
}

// Run carries out the step.
func (s Step) Run(ctx context.Context) {
	res, err := Sync(ctx, s.Client, s.Target)
	if err != nil {
		logf.FromContext(ctx).Error(err, "roll the consumers of the delivered Secret")
		s.Event(corev1.EventTypeWarning, EventFailed, "%v", err)
		return
	}
	*s.Status = res.Statuses
	s.Pending(res.Pending)
	if res.Stamped != "" {
		s.Event(corev1.EventTypeNormal, EventStamped, "%s stamped with %s %d", res.Stamped, s.Generation, s.Target.Generation)
	}
}
