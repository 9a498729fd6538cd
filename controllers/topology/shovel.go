package topology

import (
	"context"
	"strings"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// Keys of a Shovel's uriSecret, as upstream reads them
// (github.com/rabbitmq/messaging-topology-operator,
// internal/controller/shovel_controller.go): AMQP URIs, comma-separated.
const (
	ShovelSecretKeySourceURI      = "srcUri"
	ShovelSecretKeyDestinationURI = "destUri"
)

// shovelActuator declares a Shovel: PUT /api/parameters/shovel/{vhost}/{name}
// with the definition upstream's GenerateShovelDefinition builds
// (internal/shovel_definition.go); deletion is DELETE of the same path.
func shovelActuator(b *rabbithole.Client, kube client.Reader) brokerKind[*rmqv1.Shovel] {
	return vhostScoped[*rmqv1.Shovel, rabbithole.ShovelDefinition, *rabbithole.ShovelInfo]{
		key: "shovel", noun: "shovel",
		named: func(o *rmqv1.Shovel) (string, string) { return o.Spec.Vhost, o.Spec.Name },
		resolve: func(ctx context.Context, o *rmqv1.Shovel) (rabbithole.ShovelDefinition, error) {
			v, err := uriSecretValues(ctx, kube, o.Namespace, o.Spec.URISecret, ShovelSecretKeySourceURI, ShovelSecretKeyDestinationURI)
			if err != nil {
				return rabbithole.ShovelDefinition{}, err
			}
			return shovelDefinition(o.Spec, v[0], v[1])
		},
		put: b.DeclareShovel, get: b.GetShovel, del: b.DeleteShovel,
		diff: shovelDiff,
	}
}

// objects decodes the optional JSON object fields of the spec.
func objects(raws ...*runtime.RawExtension) ([]map[string]any, error) {
	out := make([]map[string]any, len(raws))
	for i, r := range raws {
		m, err := arguments(r)
		if err != nil {
			return nil, err
		}
		out[i] = m
	}
	return out, nil
}

// shovelDefinition is upstream's GenerateShovelDefinition: the URIs src and
// dest split at commas, the JSON object fields decoded, the others as they
// are. Errors: a JSON field that is no object.
func shovelDefinition(s rmqv1.ShovelSpec, src, dest string) (rabbithole.ShovelDefinition, error) {
	m, err := objects(s.SourceConsumerArgs, s.DestinationApplicationProperties, s.DestinationProperties,
		s.DestinationPublishProperties, s.DestinationMessageAnnotations, s.SourceQueueArgs, s.DestinationQueueArgs)
	if err != nil {
		return rabbithole.ShovelDefinition{}, err
	}
	return rabbithole.ShovelDefinition{
		SourceURI: strings.Split(src, ","), DestinationURI: strings.Split(dest, ","),
		AckMode: s.AckMode, AddForwardHeaders: s.AddForwardHeaders, DeleteAfter: rabbithole.DeleteAfter(s.DeleteAfter),
		DestinationAddForwardHeaders: s.DestinationAddForwardHeaders, DestinationAddTimestampHeader: s.DestinationAddTimestampHeader,
		DestinationAddress: s.DestinationAddress, DestinationApplicationProperties: m[1],
		DestinationExchange: s.DestinationExchange, DestinationExchangeKey: s.DestinationExchangeKey,
		DestinationProperties: m[2], DestinationProtocol: s.DestinationProtocol, DestinationPublishProperties: m[3],
		DestinationQueue: s.DestinationQueue, DestinationQueueArgs: m[6], DestinationMessageAnnotations: m[4],
		PrefetchCount: s.PrefetchCount, ReconnectDelay: s.ReconnectDelay, SourceAddress: s.SourceAddress,
		SourceDeleteAfter: rabbithole.DeleteAfter(s.SourceDeleteAfter), SourceExchange: s.SourceExchange,
		SourceExchangeKey: s.SourceExchangeKey, SourcePrefetchCount: s.SourcePrefetchCount,
		SourceProtocol: s.SourceProtocol, SourceQueue: s.SourceQueue, SourceQueueArgs: m[5], SourceConsumerArgs: m[0],
	}, nil
}

// shovelDiff compares where messages come from and go to; the other keys
// are re-sent only with a changed spec.
func shovelDiff(diff *differs, s *rabbithole.ShovelInfo, want rabbithole.ShovelDefinition) {
	have := s.Definition
	diff.check(!sameSet(have.SourceURI, want.SourceURI) || !sameSet(have.DestinationURI, want.DestinationURI), "URIs")
	diff.check(have.SourceQueue != want.SourceQueue || have.SourceExchange != want.SourceExchange ||
		have.SourceExchangeKey != want.SourceExchangeKey, "source")
	diff.check(have.DestinationQueue != want.DestinationQueue || have.DestinationExchange != want.DestinationExchange ||
		have.DestinationExchangeKey != want.DestinationExchangeKey, "destination")
}
