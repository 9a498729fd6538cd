package topology

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// Labels upstream puts on a SuperStream's resources
// (github.com/rabbitmq/messaging-topology-operator,
// internal/managedresource/managedresource_builder.go).
const (
	LabelSuperStream           = "rabbitmq.com/super-stream"
	LabelSuperStreamRoutingKey = "rabbitmq.com/super-stream-routing-key"
)

// superStreamChild is one resource a SuperStream owns: obj carries its key
// and labels, apply writes its spec, what names it in messages.
type superStreamChild struct {
	obj   client.Object
	apply func(client.Object)
	what  string
}

// superStreamChildren are upstream's resources of a SuperStream: the
// Exchange <name>-exchange (a durable direct exchange named <name>), and
// per routing key k at index i the Queue <name>-partition-<i> (the durable
// stream <name>-<k>) and the Binding <name>-binding-<i> (exchange to stream,
// routing key k, argument x-stream-partition-order i).
func superStreamChildren(o *rmqv1.SuperStream, d superStreamDesired) []superStreamChild {
	meta := func(suffix string, labels ...string) metav1.ObjectMeta {
		l := map[string]string{LabelSuperStream: o.Name}
		if len(labels) > 0 {
			l[LabelSuperStreamRoutingKey] = labels[0]
		}
		return metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name + suffix, Labels: l}
	}
	out := []superStreamChild{{obj: &rmqv1.Exchange{ObjectMeta: meta("-exchange")}, what: fmt.Sprintf("Exchange %s-exchange", o.Name),
		apply: func(c client.Object) {
			s := &c.(*rmqv1.Exchange).Spec
			s.Name, s.Vhost, s.Type, s.Durable, s.RabbitmqClusterReference = d.Name, d.Vhost, "direct", true, d.Cluster
		}}}
	for i, k := range d.RoutingKeys {
		stream := superStreamPartition(d.Name, k)
		out = append(out,
			superStreamChild{obj: &rmqv1.Queue{ObjectMeta: meta(fmt.Sprintf("-partition-%d", i), k)}, what: fmt.Sprintf("Queue %s-partition-%d", o.Name, i),
				apply: func(c client.Object) {
					s := &c.(*rmqv1.Queue).Spec
					s.Name, s.Vhost, s.Type, s.Durable, s.RabbitmqClusterReference = stream, d.Vhost, "stream", ptrTo(true), d.Cluster
				}},
			superStreamChild{obj: &rmqv1.Binding{ObjectMeta: meta(fmt.Sprintf("-binding-%d", i), k)}, what: fmt.Sprintf("Binding %s-binding-%d", o.Name, i),
				apply: func(c client.Object) {
					s := &c.(*rmqv1.Binding).Spec
					s.Source, s.Destination, s.DestinationType, s.RoutingKey, s.Vhost = d.Name, stream, "queue", k, d.Vhost
					s.Arguments = &runtime.RawExtension{Raw: []byte(fmt.Sprintf(`{"x-stream-partition-order":%d}`, i))}
					s.RabbitmqClusterReference = d.Cluster
				}})
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }
