package topology

import (
	"context"
	"strings"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
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
type shovelActuator struct {
	broker *rabbithole.Client
	kube   client.Client
}

type shovelDesired struct {
	Vhost, Name string
	Definition  rabbithole.ShovelDefinition
}

// uris reads srcUri and destUri of the Shovel's uriSecret (uriSecretValues).
func (a shovelActuator) uris(ctx context.Context, o *rmqv1.Shovel) (src, dest string, err error) {
	v, err := uriSecretValues(ctx, a.kube, o.Namespace, o.Spec.URISecret, ShovelSecretKeySourceURI, ShovelSecretKeyDestinationURI)
	if err != nil {
		return "", "", err
	}
	return v[0], v[1], nil
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

func (a shovelActuator) Resolve(ctx context.Context, o *rmqv1.Shovel) (any, error) {
	src, dest, err := a.uris(ctx, o)
	if err != nil {
		return nil, err
	}
	s := o.Spec
	m, err := objects(s.SourceConsumerArgs, s.DestinationApplicationProperties, s.DestinationProperties,
		s.DestinationPublishProperties, s.DestinationMessageAnnotations, s.SourceQueueArgs, s.DestinationQueueArgs)
	if err != nil {
		return nil, err
	}
	return shovelDesired{Vhost: vhostOrRoot(s.Vhost), Name: s.Name, Definition: rabbithole.ShovelDefinition{
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
	}}, nil
}

func (a shovelActuator) Declare(_ context.Context, _ *rmqv1.Shovel, desired any) error {
	d := desired.(shovelDesired)
	return rabbitmq.Done(a.broker.DeclareShovel(d.Vhost, d.Name, d.Definition))
}

// Delete deletes the shovel; a vhost deleted first makes this a 404, which
// counts as success.
func (a shovelActuator) Delete(_ context.Context, o *rmqv1.Shovel) error {
	return rabbitmq.Done(a.broker.DeleteShovel(vhostOrRoot(o.Spec.Vhost), o.Spec.Name))
}

func (shovelActuator) indexKey(o *rmqv1.Shovel) string {
	return inVhost("shovel", o.Spec.Vhost, o.Spec.Name)
}

func (a shovelActuator) declares(_ context.Context, _ client.Reader, o *rmqv1.Shovel) (string, string, error) {
	return a.indexKey(o), namedInVhost("shovel", o.Spec.Vhost, o.Spec.Name), nil
}

// Drift reads the shovel parameter and compares where messages come from
// and go to; the other keys are re-sent only with a changed spec.
func (a shovelActuator) Drift(_ context.Context, _ *rmqv1.Shovel, desired any) ([]string, error) {
	d := desired.(shovelDesired)
	return compared(namedInVhost("shovel", d.Vhost, d.Name), a.broker.GetShovel, d.Vhost, d.Name, d.Definition,
		func(diff *differs, s *rabbithole.ShovelInfo, want rabbithole.ShovelDefinition) {
			have := s.Definition
			diff.check(!sameSet(have.SourceURI, want.SourceURI) || !sameSet(have.DestinationURI, want.DestinationURI), "URIs")
			diff.check(have.SourceQueue != want.SourceQueue || have.SourceExchange != want.SourceExchange ||
				have.SourceExchangeKey != want.SourceExchangeKey, "source")
			diff.check(have.DestinationQueue != want.DestinationQueue || have.DestinationExchange != want.DestinationExchange ||
				have.DestinationExchangeKey != want.DestinationExchangeKey, "destination")
		})
}
