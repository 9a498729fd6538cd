package topology

import (
	"context"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// operatorPolicyActuator declares an OperatorPolicy:
// PUT /api/operator-policies/{vhost}/{name}; deletion is DELETE of the same
// path (upstream: internal/controller/operatorpolicy_controller.go).
type operatorPolicyActuator struct{ broker *rabbithole.Client }

func (operatorPolicyActuator) Resolve(_ context.Context, o *rmqv1.OperatorPolicy) (any, error) {
	s := o.Spec
	p, err := resolvePolicy(s.Vhost, s.Name, s.Pattern, s.ApplyTo, "queues", s.Priority, s.Definition)
	return rabbithole.OperatorPolicy(p), err
}

func (a operatorPolicyActuator) Declare(_ context.Context, _ *rmqv1.OperatorPolicy, desired any) error {
	p := desired.(rabbithole.OperatorPolicy)
	return rabbitmq.Done(a.broker.PutOperatorPolicy(p.Vhost, p.Name, p))
}

// Delete deletes the operator policy; a vhost deleted first makes this a
// 404, which counts as success.
func (a operatorPolicyActuator) Delete(_ context.Context, o *rmqv1.OperatorPolicy) error {
	return rabbitmq.Done(a.broker.DeleteOperatorPolicy(vhostOrRoot(o.Spec.Vhost), o.Spec.Name))
}

func (operatorPolicyActuator) indexKey(o *rmqv1.OperatorPolicy) string {
	return inVhost("operator-policy", o.Spec.Vhost, o.Spec.Name)
}

func (a operatorPolicyActuator) declares(_ context.Context, _ client.Reader, o *rmqv1.OperatorPolicy) (string, string, error) {
	return a.indexKey(o), namedInVhost("operator policy", o.Spec.Vhost, o.Spec.Name), nil
}

func (a operatorPolicyActuator) Drift(_ context.Context, _ *rmqv1.OperatorPolicy, desired any) ([]string, error) {
	d := desired.(rabbithole.OperatorPolicy)
	return compared(namedInVhost("operator policy", d.Vhost, d.Name), a.broker.GetOperatorPolicy, d.Vhost, d.Name, d,
		func(diff *differs, p *rabbithole.OperatorPolicy, want rabbithole.OperatorPolicy) {
			policyDiff(diff, rabbithole.Policy(*p), rabbithole.Policy(want))
		})
}
