package topology

import (
	"context"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	"k8s.io/apimachinery/pkg/runtime"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// policyActuator declares a Policy: PUT /api/policies/{vhost}/{name}.
func policyActuator(b *rabbithole.Client) brokerKind[*rmqv1.Policy] {
	return vhostScoped[*rmqv1.Policy, rabbithole.Policy, *rabbithole.Policy]{
		key: "policy", noun: "policy",
		named: func(o *rmqv1.Policy) (string, string) { return o.Spec.Vhost, o.Spec.Name },
		resolve: func(_ context.Context, o *rmqv1.Policy) (rabbithole.Policy, error) {
			s := o.Spec
			return resolvePolicy(s.Vhost, s.Name, s.Pattern, s.ApplyTo, "all", s.Priority, s.Definition)
		},
		put: b.PutPolicy, get: b.GetPolicy, del: b.DeletePolicy,
		diff: func(diff *differs, p *rabbithole.Policy, want rabbithole.Policy) { policyDiff(diff, *p, want) },
	}
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

// policyDiff checks the fields of a Policy or an OperatorPolicy (converted)
// in which the broker's got differs from want.
func policyDiff(diff *differs, got, want rabbithole.Policy) {
	diff.check(got.Pattern != want.Pattern, "pattern")
	diff.check(got.ApplyTo != want.ApplyTo, "applyTo")
	diff.check(got.Priority != want.Priority, "priority")
	diff.check(!sameArguments(got.Definition, want.Definition), "definition")
}
