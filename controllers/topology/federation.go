package topology

import (
	"context"
	"reflect"
	"strings"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// FederationSecretKeyURI is the key of a Federation's uriSecret, as
// upstream reads it (github.com/rabbitmq/messaging-topology-operator,
// internal/controller/federation_controller.go): AMQP URIs, comma-separated.
const FederationSecretKeyURI = "uri"

// federationActuator declares a Federation:
// PUT /api/parameters/federation-upstream/{vhost}/{name} with the
// definition upstream's GenerateFederationDefinition builds
// (internal/federation_definition.go); deletion is DELETE of the same path.
type federationActuator struct {
	broker *rabbithole.Client
	kube   client.Client
}

type federationDesired struct {
	Vhost, Name string
	Definition  rabbithole.FederationDefinition
}

func (a federationActuator) Resolve(ctx context.Context, o *rmqv1.Federation) (any, error) {
	v, err := uriSecretValues(ctx, a.kube, o.Namespace, o.Spec.URISecret, FederationSecretKeyURI)
	if err != nil {
		return nil, err
	}
	return federationDesired{Vhost: vhostOrRoot(o.Spec.Vhost), Name: o.Spec.Name, Definition: federationDefinition(o.Spec, v[0])}, nil
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

func (a federationActuator) Declare(_ context.Context, _ *rmqv1.Federation, desired any) error {
	d := desired.(federationDesired)
	return rabbitmq.Done(a.broker.PutFederationUpstream(d.Vhost, d.Name, d.Definition))
}

// Delete deletes the federation upstream; a vhost deleted first makes this
// a 404, which counts as success.
func (a federationActuator) Delete(_ context.Context, o *rmqv1.Federation) error {
	return rabbitmq.Done(a.broker.DeleteFederationUpstream(vhostOrRoot(o.Spec.Vhost), o.Spec.Name))
}

func (federationActuator) indexKey(o *rmqv1.Federation) string {
	return inVhost("federation-upstream", o.Spec.Vhost, o.Spec.Name)
}

func (a federationActuator) declares(_ context.Context, _ client.Reader, o *rmqv1.Federation) (string, string, error) {
	return a.indexKey(o), namedInVhost("federation upstream", o.Spec.Vhost, o.Spec.Name), nil
}

// Drift reads the federation upstream parameter and compares its URIs (as
// a set) and its other keys.
func (a federationActuator) Drift(_ context.Context, _ *rmqv1.Federation, desired any) ([]string, error) {
	d := desired.(federationDesired)
	return compared(namedInVhost("federation upstream", d.Vhost, d.Name), a.broker.GetFederationUpstream,
		d.Vhost, d.Name, d.Definition, federationDiff)
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
