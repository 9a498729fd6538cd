package topology

import (
	"context"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// exchangeActuator declares an Exchange: PUT /api/exchanges/{vhost}/{name}.
type exchangeActuator struct{ broker *rabbithole.Client }

type exchangeDesired struct {
	Vhost, Name string
	Settings    rabbithole.ExchangeSettings
}

func (exchangeActuator) Resolve(_ context.Context, o *rmqv1.Exchange) (any, error) {
	args, err := arguments(o.Spec.Arguments)
	if err != nil {
		return nil, err
	}
	t := o.Spec.Type
	if t == "" {
		t = "direct"
	}
	return exchangeDesired{Vhost: vhostOrRoot(o.Spec.Vhost), Name: o.Spec.Name, Settings: rabbithole.ExchangeSettings{
		Type: t, Durable: o.Spec.Durable, AutoDelete: o.Spec.AutoDelete, Arguments: args}}, nil
}

func (a exchangeActuator) Declare(_ context.Context, _ *rmqv1.Exchange, desired any) error {
	d := desired.(exchangeDesired)
	return rabbitmq.Done(a.broker.DeclareExchange(d.Vhost, d.Name, d.Settings))
}

func (a exchangeActuator) Delete(_ context.Context, o *rmqv1.Exchange) error {
	return rabbitmq.Done(a.broker.DeleteExchange(vhostOrRoot(o.Spec.Vhost), o.Spec.Name))
}
