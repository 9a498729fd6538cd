package orders

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/apply"
)

// OwnedElsewhereMessage is the ChildOwnedElsewhere message of refusal e as
// viewer may read it (docs/reference/keystoneuser.md, "Child ownership"):
// the child's namespace only when it is viewer's own (or viewer is a
// platform registration), its owner through HolderSeenBy. Pure.
func OwnedElsewhereMessage(e *apply.OwnedElsewhereError, viewer Order) string {
	where := e.Kind + " " + e.Name + " in the ControlPlane's namespace"
	if e.Namespace == viewer.Namespace || viewer.Kind == platformKind {
		where = e.Kind + " " + e.Namespace + "/" + e.Name
	}
	owner := "carries no orderhub ownership labels (the hub did not create it)"
	if o, ok := OrderOfLabels(e.Owner[LabelOwnerKind], e.Owner); ok {
		owner = "belongs to " + HolderSeenBy(holderIdentity(o), viewer)
	}
	return fmt.Sprintf("%s, the name of this %s's child, exists and %s: the hub leaves it untouched; "+
		"have it deleted if it is stray (the platform's operators can), or rename this order", where, viewer.Kind, owner)
}

// RefuseChild rewrites conds, the pass's conditions at generation gen, for
// refusal e: every sub-condition False/ChildOwnedElsewhere with
// OwnedElsewhereMessage, Ready False/NotAllReady naming it. A nil e returns
// conds unchanged. Pure.
func RefuseChild(conds []metav1.Condition, e *apply.OwnedElsewhereError, viewer Order, gen int64) []metav1.Condition {
	if e == nil {
		return conds
	}
	msg := OwnedElsewhereMessage(e, viewer)
	out := make([]metav1.Condition, 0, len(conds))
	var first string
	for _, c := range conds {
		if c.Type == c5c3v1alpha1.ConditionReady {
			continue
		}
		if first == "" {
			first = c.Type
		}
		out = append(out, metav1.Condition{Type: c.Type, Status: metav1.ConditionFalse, ObservedGeneration: gen,
			Reason: c5c3v1alpha1.ReasonChildOwnedElsewhere, Message: msg})
	}
	return append(out, metav1.Condition{Type: c5c3v1alpha1.ConditionReady, Status: metav1.ConditionFalse,
		ObservedGeneration: gen, Reason: c5c3v1alpha1.ReasonNotAllReady,
		Message: fmt.Sprintf("%s is %s: %s", first, c5c3v1alpha1.ReasonChildOwnedElsewhere, msg)})
}
