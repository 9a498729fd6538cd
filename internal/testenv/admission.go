package testenv

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// RefusalMessage is the message of every request a Refusal refuses.
const RefusalMessage = "refused by the test's admission policy"

// Refusal makes the stack's apiserver refuse requests in one namespace with
// a ValidatingAdmissionPolicy and its binding (Kubernetes' built-in CEL
// admission, https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/):
// a real apiserver refusal, as a quota, a policy engine or a webhook of the
// cluster would give it, for the Kubernetes-level error reasons.
type Refusal struct {
	// Namespace the refusal applies in.
	Namespace string
	// Group is the API group of Resources ("" for the core group).
	Group string
	// Resources are plural resource names, subresources as
	// "projects/status".
	Resources []string
	// Operations refused; empty: CREATE.
	Operations []admissionregistrationv1.OperationType
	// Allow is a CEL expression over object (and request) that lets a
	// matching request through when true; empty: every matching request is
	// refused.
	Allow string
}

var refusals atomic.Int64

// Refuse puts r in force and returns the function that lifts it (also run
// when tb ends). It returns once the apiserver enforces it: the policy also
// refuses a dry-run create of a ConfigMap in the namespace, which it waits
// for.
func Refuse(tb testing.TB, c client.Client, r Refusal) (lift func()) {
	tb.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("testenv-refuse-%s-%d", r.Namespace, refusals.Add(1))
	ops := r.Operations
	if len(ops) == 0 {
		ops = []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	}
	// The probe: a ConfigMap create is always refused; a matching request
	// of r passes only when Allow holds.
	expr := `request.kind.kind != "ConfigMap"`
	if r.Allow != "" {
		expr += " && (" + r.Allow + ")"
	} else {
		expr += " && false"
	}
	fail := admissionregistrationv1.Fail
	rule := func(group string, res []string, ops []admissionregistrationv1.OperationType) admissionregistrationv1.NamedRuleWithOperations {
		return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"*"}, Resources: res}}}
	}
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{FailurePolicy: &fail,
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{
				rule(r.Group, r.Resources, ops),
				rule("", []string{"configmaps"}, []admissionregistrationv1.OperationType{admissionregistrationv1.Create}),
			}},
			Validations: []admissionregistrationv1.Validation{{Expression: expr, Message: RefusalMessage}}}}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{corev1.LabelMetadataName: r.Namespace}}}}}
	for _, o := range []client.Object{policy, binding} {
		if err := c.Create(ctx, o); err != nil {
			tb.Fatalf("admission refusal %s: %v", name, err)
		}
	}
	lifted := false
	lift = func() {
		if lifted {
			return
		}
		lifted = true
		for _, o := range []client.Object{binding, policy} {
			if err := c.Delete(context.Background(), o); err != nil {
				tb.Errorf("lifting admission refusal %s: %v", name, err)
			}
		}
	}
	tb.Cleanup(lift)
	Eventually(tb, time.Minute, "the apiserver enforces admission refusal "+name, func() error {
		err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "refusal-probe", Namespace: r.Namespace}}, client.DryRunAll)
		if err != nil && strings.Contains(err.Error(), RefusalMessage) {
			return nil
		}
		return fmt.Errorf("a dry-run ConfigMap create was not refused: %v", err)
	})
	return lift
}
