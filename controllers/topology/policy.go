package topology

import (
	"context"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// policyActuator declares a Policy: PUT /api/policies/{vhost}/{name}.
type policyActuator struct{ broker *rabbithole.Client }

var _ actuator[*rmqv1.Policy] = policyActuator{}

func (policyActuator) Resolve(_ context.Context, o *rmqv1.Policy) (any, error) {
	def, err := arguments(o.Spec.Definition)
	if err != nil {
		return nil, err
	}
	applyTo := o.Spec.ApplyTo
	if applyTo == "" {
		applyTo = "all"
	}
	return rabbithole.Policy{Vhost: vhostOrRoot(o.Spec.Vhost), Name: o.Spec.Name, Pattern: o.Spec.Pattern,
		ApplyTo: applyTo, Priority: o.Spec.Priority, Definition: def}, nil
}

func (a policyActuator) Declare(_ context.Context, _ *rmqv1.Policy, desired any) error {
	p := desired.(rabbithole.Policy)
	return rabbitmq.Done(a.broker.PutPolicy(p.Vhost, p.Name, p))
}

// Delete deletes the policy; a vhost deleted first makes this a 404, which
// counts as success.
func (a policyActuator) Delete(_ context.Context, o *rmqv1.Policy) error {
	return rabbitmq.Done(a.broker.DeletePolicy(vhostOrRoot(o.Spec.Vhost), o.Spec.Name))
}
