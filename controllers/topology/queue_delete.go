package topology

import (
	"fmt"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// deleteQueue deletes the Queue's broker queue honouring deleteIfEmpty and
// deleteIfUnused. A quorum queue refuses DELETE with ?if-empty or ?if-unused
// (HTTP 400), so for one the flags are checked against a GET of the queue
// and the DELETE is sent without them, as upstream's operator does
// (github.com/rabbitmq/messaging-topology-operator,
// internal/queue_delete_options.go); docs/topology.md, "Deletion". A queue
// already gone is deleted (nil).
func (a queueActuator) deleteQueue(o *rmqv1.Queue) error {
	vhost, opts := vhostOrRoot(o.Spec.Vhost), rabbithole.QueueDeleteOptions{IfEmpty: o.Spec.DeleteIfEmpty, IfUnused: o.Spec.DeleteIfUnused}
	if opts.IfEmpty || opts.IfUnused {
		q, err := a.broker.GetQueue(vhost, o.Spec.Name)
		if rabbitmq.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if q.Type == "quorum" {
			if err := quorumDeleteRefusal(o.Spec.Name, q.Messages, q.Consumers, opts); err != nil {
				return err
			}
			opts = rabbithole.QueueDeleteOptions{}
		}
	}
	return rabbitmq.Done(a.broker.DeleteQueue(vhost, o.Spec.Name, opts))
}

// quorumDeleteRefusal is the error that keeps a quorum queue holding
// messages (with IfEmpty) or consumers (with IfUnused); nil when it may go.
func quorumDeleteRefusal(name string, messages, consumers int, opts rabbithole.QueueDeleteOptions) error {
	if opts.IfEmpty && messages > 0 {
		return fmt.Errorf("quorum queue %q holds %d messages and deleteIfEmpty is set: it is deleted once empty, or set deleteIfEmpty to false", name, messages)
	}
	if opts.IfUnused && consumers > 0 {
		return fmt.Errorf("quorum queue %q has %d consumers and deleteIfUnused is set: it is deleted once unused, or set deleteIfUnused to false", name, consumers)
	}
	return nil
}
