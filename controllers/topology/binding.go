package topology

import (
	"context"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// bindingActuator declares a Binding. Declaring is one POST: the broker
// makes it idempotent (a binding declared twice, with the same routing key
// and arguments, is one binding). The management API gives a binding no
// name, so the listing of the bindings between source and destination is
// kept for what needs to find it: the drift check of a forced resync
// (Drift) and deletion, which uses the properties_key of the matching listed
// bindings (docs/topology.md, "Reconciliation").
type bindingActuator struct {
	broker *rabbithole.Client
	kube   client.Reader
}

var _ dependent[*rmqv1.Binding] = bindingActuator{}

// Pending names a Queue or Exchange resource that declares o's source or
// destination and has not reported yet (dependency.go).
func (a bindingActuator) Pending(ctx context.Context, o *rmqv1.Binding) (string, error) {
	return pendingDependency(ctx, a.kube, o)
}

func (bindingActuator) Resolve(_ context.Context, o *rmqv1.Binding) (any, error) {
	return bindingInfo(o)
}

// Destination types of a binding (spec.destinationType).
const (
	destinationQueue    = "queue"
	destinationExchange = "exchange"
)

// destinationType is spec.destinationType, an omitted one meaning exchange:
// upstream has no default and passes the empty value to rabbit-hole, whose
// binding path is /e/{destination} for anything but "queue"
// (github.com/michaelklishin/rabbit-hole/v3 bindings.go, bindingPath).
func destinationType(spec rmqv1.BindingSpec) string {
	if spec.DestinationType == destinationQueue {
		return destinationQueue
	}
	return destinationExchange
}

// bindingInfo is the binding as the API names it.
func bindingInfo(o *rmqv1.Binding) (rabbithole.BindingInfo, error) {
	args, err := arguments(o.Spec.Arguments)
	if err != nil {
		return rabbithole.BindingInfo{}, err
	}
	dt := destinationType(o.Spec)
	return rabbithole.BindingInfo{Vhost: vhostOrRoot(o.Spec.Vhost), Source: o.Spec.Source, Destination: o.Spec.Destination,
		DestinationType: dt, RoutingKey: o.Spec.RoutingKey, Arguments: args}, nil
}

func (a bindingActuator) list(b rabbithole.BindingInfo) ([]rabbithole.BindingInfo, error) {
	if b.DestinationType == destinationQueue {
		return a.broker.ListQueueBindingsBetween(b.Vhost, b.Source, b.Destination)
	}
	return a.broker.ListExchangeBindingsBetween(b.Vhost, b.Source, b.Destination)
}

// Declare POSTs the binding without listing first: the POST of an existing
// binding leaves the one binding there is.
func (a bindingActuator) Declare(_ context.Context, _ *rmqv1.Binding, desired any) error {
	b := desired.(rabbithole.BindingInfo)
	return rabbitmq.Done(a.broker.DeclareBinding(b.Vhost, b))
}

// Delete removes exactly the bindings matching routing key and arguments. A
// vhost, source or destination already gone (404 on the listing) means the
// binding is gone too.
func (a bindingActuator) Delete(_ context.Context, o *rmqv1.Binding) error {
	b, err := bindingInfo(o)
	if err != nil {
		return err
	}
	listed, err := a.list(b)
	if err != nil {
		if rabbitmq.IsNotFound(err) {
			return nil
		}
		return err
	}
	for _, m := range matchingBindings(listed, b.RoutingKey, b.Arguments) {
		m.DestinationType = b.DestinationType
		if err := rabbitmq.Done(a.broker.DeleteBinding(b.Vhost, m)); err != nil {
			return err
		}
	}
	return nil
}
