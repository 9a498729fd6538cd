package topology

import (
	"context"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	"k8s.io/apimachinery/pkg/runtime"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// policyActuator declares a Policy: PUT /api/policies/{vhost}/{name}.
type policyActuator struct{ broker *rabbithole.Client }

func (policyActuator) Resolve(_ context.Context, o *rmqv1.Policy) (any, error) {
	s := o.Spec
	return resolvePolicy(s.Vhost, s.Name, s.Pattern, s.ApplyTo, "all", s.Priority, s.Definition)
}

// resolvePolicy is the desired policy of a Policy or an OperatorPolicy (whose
// rabbit-hole type has the same fields): vhost "" is "/", applyTo ""
// is defaultApplyTo. Errors: a definition that is no JSON object.
func resolvePolicy(vhost, name, pattern, applyTo, defaultApplyTo string, priority int,
	definition *runtime.RawExtension) (rabbithole.Policy, error) {
	def, err := arguments(definition)
	if err != nil {
		return rabbithole.Policy{}, err
	}
	if applyTo == "" {
		applyTo = defaultApplyTo
	}
	return rabbithole.Policy{Vhost: vhostOrRoot(vhost), Name: name, Pattern: pattern,
		ApplyTo: applyTo, Priority: priority, Definition: def}, nil
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
