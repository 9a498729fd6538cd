package topology

import (
	"context"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// queueActuator declares a Queue: PUT /api/queues/{vhost}/{name}, with the
// type sent as the x-queue-type argument. Its Delete replaces vhostScoped's
// to honour deleteIfEmpty and deleteIfUnused (queue_delete.go).
type queueActuator struct {
	vhostScoped[*rmqv1.Queue, rabbithole.QueueSettings, *rabbithole.DetailedQueueInfo]
	broker *rabbithole.Client
}

func newQueueActuator(b *rabbithole.Client) queueActuator {
	return queueActuator{broker: b, vhostScoped: vhostScoped[*rmqv1.Queue, rabbithole.QueueSettings, *rabbithole.DetailedQueueInfo]{
		key: "queue", noun: "queue",
		named: func(o *rmqv1.Queue) (string, string) { return o.Spec.Vhost, o.Spec.Name },
		resolve: func(_ context.Context, o *rmqv1.Queue) (rabbithole.QueueSettings, error) {
			args, err := arguments(o.Spec.Arguments)
			if err != nil {
				return rabbithole.QueueSettings{}, err
			}
			return queueSettings(o.Spec, args), nil
		},
		put: b.DeclareQueue, get: b.GetQueue, diff: queueDiff,
	}}
}

func (a queueActuator) Delete(_ context.Context, o *rmqv1.Queue) error {
	return a.deleteQueue(o)
}

// queueSettings is the PUT body. PUT /api/queues has no type of its own, so
// spec.type travels as arguments.x-queue-type (rabbit-hole copies Type
// there, over the argument): spec.type, when set, wins over an x-queue-type
// in arguments, as upstream's (docs/topology.md, "Compatibility with the
// upstream operator"). durable is required at admission; an omitted one
// (a Queue stored while the schema defaulted it to true) is true.
func queueSettings(s rmqv1.QueueSpec, args map[string]any) rabbithole.QueueSettings {
	qs := rabbithole.QueueSettings{Type: s.Type, Durable: s.Durable == nil || *s.Durable, AutoDelete: s.AutoDelete, Arguments: args}
	if t, ok := args["x-queue-type"].(string); ok && qs.Type == "" {
		qs.Type = t
	}
	return qs
}

// queueDiff compares the broker's queue q with the settings declared; the
// type is compared as the x-queue-type argument.
func queueDiff(diff *differs, q *rabbithole.DetailedQueueInfo, s rabbithole.QueueSettings) {
	want := map[string]any{}
	for k, v := range s.Arguments {
		want[k] = v
	}
	if s.Type != "" {
		want["x-queue-type"] = s.Type
	}
	have := q.Arguments
	if _, ok := want["x-queue-type"]; !ok {
		// A queue declared without a type may be listed with the default.
		have = withoutKey(have, "x-queue-type")
	}
	diff.check(q.Durable != s.Durable, "durable")
	diff.check(bool(q.AutoDelete) != s.AutoDelete, "autoDelete")
	diff.check(!sameArguments(have, want), "arguments")
}

// vhostOrRoot applies the schema default "/" for objects created without it.
func vhostOrRoot(v string) string {
	if v == "" {
		return "/"
	}
	return v
}
