package topology

import (
	"context"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// operatorPolicyActuator declares an OperatorPolicy:
// PUT /api/operator-policies/{vhost}/{name}; deletion is DELETE of the same
// path (upstream: internal/controller/operatorpolicy_controller.go).
func operatorPolicyActuator(b *rabbithole.Client) brokerKind[*rmqv1.OperatorPolicy] {
	return vhostScoped[*rmqv1.OperatorPolicy, rabbithole.OperatorPolicy, *rabbithole.OperatorPolicy]{
		key: "operator-policy", noun: "operator policy",
		named: func(o *rmqv1.OperatorPolicy) (string, string) { return o.Spec.Vhost, o.Spec.Name },
		resolve: func(_ context.Context, o *rmqv1.OperatorPolicy) (rabbithole.OperatorPolicy, error) {
			s := o.Spec
			p, err := resolvePolicy(s.Vhost, s.Name, s.Pattern, s.ApplyTo, "queues", s.Priority, s.Definition)
			return rabbithole.OperatorPolicy(p), err
		},
		put: b.PutOperatorPolicy, get: b.GetOperatorPolicy, del: b.DeleteOperatorPolicy,
		diff: func(diff *differs, p *rabbithole.OperatorPolicy, want rabbithole.OperatorPolicy) {
			policyDiff(diff, rabbithole.Policy(*p), rabbithole.Policy(want))
		},
	}
}
