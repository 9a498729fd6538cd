package controlplane

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// holdTransient applies HoldTransient to the pass's AdminCredentialReady and
// logs a held failure.
func (r *Reconciler) holdTransient(ctx context.Context, cp *c5c3v1alpha1.ControlPlane, want metav1.Condition) (metav1.Condition, bool) {
	prev := meta.FindStatusCondition(cp.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady)
	got, since, held := HoldTransient(prev, want, r.failing.get(cp.UID), r.now(), r.opts.FailureConfirmation)
	r.failing.set(cp.UID, since)
	if held {
		log.FromContext(ctx).Info("admin credential check failed; AdminCredentialReady stays True unless the failure persists",
			"reason", want.Reason, "message", want.Message, "failingSince", since, "confirmAfter", r.opts.FailureConfirmation)
	}
	return got, held
}
