package topology

import (
	"context"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// exchangeActuator declares an Exchange: PUT /api/exchanges/{vhost}/{name}.
func exchangeActuator(b *rabbithole.Client) brokerKind[*rmqv1.Exchange] {
	return vhostScoped[*rmqv1.Exchange, rabbithole.ExchangeSettings, *rabbithole.DetailedExchangeInfo]{
		key: "exchange", noun: "exchange",
		named:   func(o *rmqv1.Exchange) (string, string) { return o.Spec.Vhost, o.Spec.Name },
		resolve: exchangeSettings, diff: exchangeDiff,
		put: b.DeclareExchange, get: b.GetExchange, del: b.DeleteExchange,
	}
}

// exchangeSettings is the PUT body; type "" is direct.
func exchangeSettings(_ context.Context, o *rmqv1.Exchange) (rabbithole.ExchangeSettings, error) {
	args, err := arguments(o.Spec.Arguments)
	if err != nil {
		return rabbithole.ExchangeSettings{}, err
	}
	t := o.Spec.Type
	if t == "" {
		t = "direct"
	}
	return rabbithole.ExchangeSettings{Type: t, Durable: o.Spec.Durable, AutoDelete: o.Spec.AutoDelete, Arguments: args}, nil
}

// exchangeDiff checks the broker's exchange e against the settings s declared.
func exchangeDiff(diff *differs, e *rabbithole.DetailedExchangeInfo, s rabbithole.ExchangeSettings) {
	diff.check(e.Type != s.Type, "type")
	diff.check(e.Durable != s.Durable, "durable")
	diff.check(bool(e.AutoDelete) != s.AutoDelete, "autoDelete")
	diff.check(!sameArguments(e.Arguments, s.Arguments), "arguments")
}
