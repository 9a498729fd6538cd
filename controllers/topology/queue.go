package topology

import (
	"context"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// queueActuator declares a Queue: PUT /api/queues/{vhost}/{name}, with the
// type sent as the x-queue-type argument.
type queueActuator struct{ broker *rabbithole.Client }

type queueDesired struct {
	Vhost, Name string
	Settings    rabbithole.QueueSettings
}

func (queueActuator) Resolve(_ context.Context, o *rmqv1.Queue) (any, error) {
	args, err := arguments(o.Spec.Arguments)
	if err != nil {
		return nil, err
	}
	return queueDesired{Vhost: vhostOrRoot(o.Spec.Vhost), Name: o.Spec.Name, Settings: queueSettings(o.Spec, args)}, nil
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

func (a queueActuator) Declare(_ context.Context, _ *rmqv1.Queue, desired any) error {
	d := desired.(queueDesired)
	return rabbitmq.Done(a.broker.DeclareQueue(d.Vhost, d.Name, d.Settings))
}

func (a queueActuator) Delete(_ context.Context, o *rmqv1.Queue) error {
	return a.deleteQueue(o)
}

// vhostOrRoot applies the schema default "/" for objects created without it.
func vhostOrRoot(v string) string {
	if v == "" {
		return "/"
	}
	return v
}
