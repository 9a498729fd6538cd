package topology

import (
	"context"
	"reflect"
	"strings"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// FederationSecretKeyURI is the key of a Federation's uriSecret, as
// upstream reads it (github.com/rabbitmq/messaging-topology-operator,
// internal/controller/federation_controller.go): AMQP URIs, comma-separated.
const FederationSecretKeyURI = "uri"

// federationActuator declares a Federation:
// PUT /api/parameters/federation-upstream/{vhost}/{name} with the
// definition upstream's GenerateFederationDefinition builds
// (internal/federation_definition.go); deletion is DELETE of the same path.
func federationActuator(b *rabbithole.Client, kube client.Reader) brokerKind[*rmqv1.Federation] {
	return vhostScoped[*rmqv1.Federation, rabbithole.FederationDefinition, *rabbithole.FederationUpstream]{
		key: "federation-upstream", noun: "federation upstream",
		named: func(o *rmqv1.Federation) (string, string) { return o.Spec.Vhost, o.Spec.Name },
		resolve: func(ctx context.Context, o *rmqv1.Federation) (rabbithole.FederationDefinition, error) {
			v, err := uriSecretValues(ctx, kube, o.Namespace, o.Spec.URISecret, FederationSecretKeyURI)
			if err != nil {
				return rabbithole.FederationDefinition{}, err
			}
			return federationDefinition(o.Spec, v[0]), nil
		},
		put: b.PutFederationUpstream, get: b.GetFederationUpstream, del: b.DeleteFederationUpstream,
		diff: federationDiff,
	}
}

// federationDefinition is upstream's GenerateFederationDefinition: uri split
// at commas, the other fields as they are.
func federationDefinition(s rmqv1.FederationSpec, uri string) rabbithole.FederationDefinition {
	return rabbithole.FederationDefinition{
		Uri: strings.Split(uri, ","), Expires: s.Expires, MessageTTL: int32(s.MessageTTL), MaxHops: s.MaxHops,
		PrefetchCount: s.PrefetchCount, ReconnectDelay: s.ReconnectDelay, AckMode: s.AckMode,
		TrustUserId: s.TrustUserID, Exchange: s.Exchange, Queue: s.Queue, QueueType: s.QueueType,
		ResourceCleanupMode: s.ResourceCleanupMode,
	}
}

// federationDiff checks what differs between the broker's upstream and the
// definition want: "URIs" (compared as a set) and "settings" (every other
// key).
func federationDiff(diff *differs, u *rabbithole.FederationUpstream, want rabbithole.FederationDefinition) {
	have := u.Definition
	diff.check(!sameSet(have.Uri, want.Uri), "URIs")
	have.Uri, want.Uri = nil, nil
	diff.check(!reflect.DeepEqual(have, want), "settings")
}
