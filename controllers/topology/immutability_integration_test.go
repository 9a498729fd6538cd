//go:build integration

package topology

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// immutabilityCase is one kind: an object, the merge patches the apiserver
// must refuse (each changes one field upstream's webhook freezes, including
// setting or removing an optional one), and patches it must still admit.
type immutabilityCase struct {
	obj      client.Object
	refused  map[string]string // message fragment → merge patch
	admitted []string
}

// docs/topology.md, "Immutable fields": every field upstream's webhook
// (github.com/rabbitmq/messaging-topology-operator internal/webhook/v1beta1/
// *_webhook.go) freezes is refused by the apiserver with a message naming
// the field and the remedy, so no accepted edit leaves a broker object that
// nothing tracks (a renamed Vhost, Queue, Exchange or Policy, a Permission
// moved to another user or vhost, an edited Binding). The other fields stay
// editable.
func TestIntegration_Topology_ImmutableFieldsAreRefused(t *testing.T) {
	retain := rmqv1.DeletionPolicyRetain
	cases := map[string]immutabilityCase{
		"Vhost": {
			obj: &rmqv1.Vhost{ObjectMeta: meta_(uniq("imm-vhost")), Spec: rmqv1.VhostSpec{Name: uniq("imm-vh"), RabbitmqClusterReference: ref()}},
			refused: map[string]string{
				"name is immutable": `{"spec":{"name":"renamed"}}`,
			},
			admitted: []string{`{"spec":{"tracing":true,"tags":["a"]}}`},
		},
		"Queue": {
			obj: &rmqv1.Queue{ObjectMeta: meta_(uniq("imm-q")), Spec: rmqv1.QueueSpec{Durable: new(true), Name: uniq("imm-q"), Type: "classic",
				Arguments: raw(`{"x-max-length":10}`), RabbitmqClusterReference: ref()}},
			refused: map[string]string{
				"name is immutable":       `{"spec":{"name":"renamed"}}`,
				"vhost is immutable":      `{"spec":{"vhost":"other"}}`,
				"type is immutable":       `{"spec":{"type":null}}`,
				"durable is immutable":    `{"spec":{"durable":false}}`,
				"autoDelete is immutable": `{"spec":{"autoDelete":true}}`,
				"arguments is immutable":  `{"spec":{"arguments":{"x-max-length":11}}}`,
			},
			admitted: []string{`{"spec":{"deleteIfEmpty":true}}`, `{"spec":{"arguments":{"x-max-length":10}}}`},
		},
		"Queue without arguments": {
			obj: &rmqv1.Queue{ObjectMeta: meta_(uniq("imm-q")), Spec: rmqv1.QueueSpec{Durable: new(true), Name: uniq("imm-q"), RabbitmqClusterReference: ref()}},
			refused: map[string]string{
				"type is immutable":      `{"spec":{"type":"quorum"}}`,
				"arguments is immutable": `{"spec":{"arguments":{}}}`,
			},
		},
		"Exchange": {
			obj: &rmqv1.Exchange{ObjectMeta: meta_(uniq("imm-ex")), Spec: rmqv1.ExchangeSpec{Name: uniq("imm-ex"), Type: "topic",
				RabbitmqClusterReference: ref()}},
			refused: map[string]string{
				"name is immutable":       `{"spec":{"name":"renamed"}}`,
				"vhost is immutable":      `{"spec":{"vhost":"other"}}`,
				"type is immutable":       `{"spec":{"type":"fanout"}}`,
				"durable is immutable":    `{"spec":{"durable":true}}`,
				"autoDelete is immutable": `{"spec":{"autoDelete":true}}`,
			},
			// Upstream leaves an exchange's arguments editable.
			admitted: []string{`{"spec":{"arguments":{"x-note":"edited"}}}`},
		},
		"Binding": {
			obj: &rmqv1.Binding{ObjectMeta: meta_(uniq("imm-b")), Spec: rmqv1.BindingSpec{Source: "src", Destination: "dst",
				DestinationType: "queue", RoutingKey: "k", RabbitmqClusterReference: ref(), DeletionPolicy: retain}},
			refused: map[string]string{
				"vhost is immutable":           `{"spec":{"vhost":"other"}}`,
				"source is immutable":          `{"spec":{"source":"src2"}}`,
				"destination is immutable":     `{"spec":{"destination":"dst2"}}`,
				"destinationType is immutable": `{"spec":{"destinationType":null}}`,
				"routingKey is immutable":      `{"spec":{"routingKey":"k2"}}`,
				"arguments is immutable":       `{"spec":{"arguments":{"x-match":"all"}}}`,
			},
			admitted: []string{`{"spec":{"deletionPolicy":"delete"}}`},
		},
		"Permission by user": {
			obj: &rmqv1.Permission{ObjectMeta: meta_(uniq("imm-perm")), Spec: rmqv1.PermissionSpec{User: uniq("imm-user"), Vhost: "/",
				Permissions: rmqv1.VhostPermissions{Read: ".*"}, RabbitmqClusterReference: ref(), DeletionPolicy: retain}},
			refused: map[string]string{
				"user is immutable":          `{"spec":{"user":"someone-else"}}`,
				"userReference is immutable": `{"spec":{"user":null,"userReference":{"name":"u"}}}`,
				"vhost is immutable":         `{"spec":{"vhost":"other"}}`,
			},
			admitted: []string{`{"spec":{"permissions":{"read":"^x$","write":".*"}}}`},
		},
		"Permission by userReference": {
			obj: &rmqv1.Permission{ObjectMeta: meta_(uniq("imm-perm")), Spec: rmqv1.PermissionSpec{
				UserReference: &corev1.LocalObjectReference{Name: "u"}, Vhost: "/",
				Permissions: rmqv1.VhostPermissions{Read: ".*"}, RabbitmqClusterReference: ref(), DeletionPolicy: retain}},
			refused: map[string]string{
				"userReference is immutable": `{"spec":{"userReference":{"name":"v"}}}`,
			},
		},
		"TopicPermission": {
			obj: &rmqv1.TopicPermission{ObjectMeta: meta_(uniq("imm-tperm")), Spec: rmqv1.TopicPermissionSpec{User: uniq("imm-user"), Vhost: "/",
				Permissions: rmqv1.TopicPermissionConfig{Exchange: "amq.topic", Read: ".*"}, RabbitmqClusterReference: ref(), DeletionPolicy: retain}},
			refused: map[string]string{
				"user is immutable":                 `{"spec":{"user":"someone-else"}}`,
				"userReference is immutable":        `{"spec":{"user":null,"userReference":{"name":"u"}}}`,
				"vhost is immutable":                `{"spec":{"vhost":"other"}}`,
				"permissions.exchange is immutable": `{"spec":{"permissions":{"exchange":"other"}}}`,
			},
			admitted: []string{`{"spec":{"permissions":{"read":"^x$","write":".*"}}}`},
		},
		"Policy": {
			obj: &rmqv1.Policy{ObjectMeta: meta_(uniq("imm-p")), Spec: rmqv1.PolicySpec{Name: uniq("imm-p"), Pattern: "^imm-never$",
				Definition: raw(`{"message-ttl":1000}`), RabbitmqClusterReference: ref()}},
			refused: map[string]string{
				"name is immutable":  `{"spec":{"name":"renamed"}}`,
				"vhost is immutable": `{"spec":{"vhost":"other"}}`,
			},
			admitted: []string{`{"spec":{"pattern":"^imm-other$","priority":3,"definition":{"message-ttl":2000}}}`},
		},
		"OperatorPolicy": {
			obj: &rmqv1.OperatorPolicy{ObjectMeta: meta_(uniq("imm-op")), Spec: rmqv1.OperatorPolicySpec{Name: uniq("imm-op"), Pattern: "^imm-never$",
				Definition: raw(`{"expires":1000}`), RabbitmqClusterReference: ref()}},
			refused: map[string]string{
				"name is immutable":  `{"spec":{"name":"renamed"}}`,
				"vhost is immutable": `{"spec":{"vhost":"other"}}`,
			},
			admitted: []string{`{"spec":{"pattern":"^imm-other$","priority":3,"definition":{"expires":2000}}}`},
		},
		"Shovel": {
			obj: &rmqv1.Shovel{ObjectMeta: meta_(uniq("imm-shovel")), Spec: rmqv1.ShovelSpec{Name: uniq("imm-shovel"),
				URISecret: &corev1.LocalObjectReference{Name: "none"}, SourceQueue: "a", DestinationQueue: "b",
				RabbitmqClusterReference: ref(), DeletionPolicy: retain}},
			refused: map[string]string{
				"name is immutable":  `{"spec":{"name":"renamed"}}`,
				"vhost is immutable": `{"spec":{"vhost":"other"}}`,
			},
			admitted: []string{`{"spec":{"destQueue":"c","prefetchCount":5}}`},
		},
		"Federation": {
			obj: &rmqv1.Federation{ObjectMeta: meta_(uniq("imm-fed")), Spec: rmqv1.FederationSpec{Name: uniq("imm-fed"),
				URISecret: &corev1.LocalObjectReference{Name: "none"}, RabbitmqClusterReference: ref(), DeletionPolicy: retain}},
			refused: map[string]string{
				"name is immutable":  `{"spec":{"name":"renamed"}}`,
				"vhost is immutable": `{"spec":{"vhost":"other"}}`,
			},
			admitted: []string{`{"spec":{"ackMode":"no-ack","maxHops":2,"uriSecret":{"name":"other"}}}`},
		},
		"User": {
			obj: managementUser(uniq("imm-user"), ""),
			refused: map[string]string{
				"rabbitmqClusterReference is immutable": `{"spec":{"rabbitmqClusterReference":{"name":"other-rabbitmq"}}}`,
			},
			admitted: []string{`{"spec":{"tags":["monitoring"]}}`},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			create(t, c.obj)
			for want, patch := range c.refused {
				err := kube.Patch(bg, c.obj.DeepCopyObject().(client.Object), client.RawPatch(types.MergePatchType, []byte(patch)))
				if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) ||
					!strings.Contains(err.Error(), "delete the") {
					t.Errorf("patch %s: got %v, want Invalid with %q and the remedy", patch, err, want)
				}
			}
			for _, patch := range c.admitted {
				if err := kube.Patch(bg, c.obj.DeepCopyObject().(client.Object), client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
					t.Errorf("patch %s of a mutable field: %v", patch, err)
				}
			}
		})
	}
}

// A Shovel speaking AMQP 1.0 on a side needs that side's address, as
// upstream's webhook has it (internal/webhook/v1beta1/shovel_webhook.go,
// amqp10Validate): the apiserver refuses it with the field named.
func TestIntegration_Topology_ShovelAMQP10NeedsAddress(t *testing.T) {
	for side, spec := range map[string]rmqv1.ShovelSpec{
		"srcAddress":  {SourceProtocol: "amqp10", DestinationAddress: "x"},
		"destAddress": {DestinationProtocol: "amqp10", SourceQueue: "q"},
	} {
		spec.Name, spec.URISecret, spec.RabbitmqClusterReference = uniq("amqp10"), &corev1.LocalObjectReference{Name: "s"}, ref()
		err := kube.Create(bg, &rmqv1.Shovel{ObjectMeta: meta_(uniq("amqp10")), Spec: spec})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), side+" is required when") {
			t.Errorf("a Shovel without %s: got %v, want Invalid naming it", side, err)
		}
	}
}
