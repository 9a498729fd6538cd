package controlplane

import (
	"context"
	"errors"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
)

// ControllerName names the controller, its field owner and its event source.
const ControllerName = "orderhub-controlplane"

// CACertKey is the Secret key K-ORC reads a CA bundle from
// (orcv1alpha1.CloudCredencialsCASecretKey, spelled as upstream).
const CACertKey = "cacert"

// Reconciler is the ControlPlane kind of lifecycle.Loop.
type Reconciler struct {
	client   client.Client
	recorder recorder.EventRecorder
	opts     Options
	now      func() time.Time
	failing  failureClock
}

// New is an empty ControlPlane (lifecycle.Kind).
func (r *Reconciler) New() *c5c3v1alpha1.ControlPlane { return &c5c3v1alpha1.ControlPlane{} }

// Pass fulfils the plane contract for cp (lifecycle.Kind): the duplicate
// guard, then observe, then the conditions to write.
func (r *Reconciler) Pass(ctx context.Context, cp *c5c3v1alpha1.ControlPlane) (*planeStatus, lifecycle.Progress) {
	older, err := r.olderPlane(ctx, cp)
	if err != nil {
		return nil, lifecycle.Failed(err)
	}
	if older != nil {
		return r.update(cp, DuplicateConditions(cp, older, cp.Generation)), lifecycle.After(DuplicateRecheckInterval)
	}
	o, errs := r.observe(ctx, cp)
	admin, held := r.holdTransient(ctx, cp, AdminCredentialCondition(o, cp.Generation))
	conds := Conditions(admin, cp.Generation)
	u := r.update(cp, conds)
	if cp.Status.ObservedGeneration != cp.Generation {
		u.Written = func() { r.warnTenantConsent(cp) }
	}
	if err := errors.Join(errs...); err != nil {
		return u, lifecycle.Failed(err)
	}
	return u, lifecycle.After(r.requeue(held, conds[len(conds)-1].Status == metav1.ConditionTrue))
}

// planeStatus is what a pass writes: conditions only.
type planeStatus = lifecycle.StatusUpdate[c5c3v1alpha1.ControlPlaneStatus]

func (r *Reconciler) update(cp *c5c3v1alpha1.ControlPlane, conds []metav1.Condition) *planeStatus {
	return &planeStatus{Fields: cp.Status, Conditions: conds, Now: metav1.NewTime(r.now())}
}

// statusWriter is the plane's only status writer (optimistic lock).
func statusWriter(rec recorder.EventRecorder) lifecycle.StatusWriter[*c5c3v1alpha1.ControlPlane, c5c3v1alpha1.ControlPlaneStatus] {
	return lifecycle.StatusWriter[*c5c3v1alpha1.ControlPlane, c5c3v1alpha1.ControlPlaneStatus]{Kind: "ControlPlane",
		Recorder: rec, OptimisticLock: true,
		Fields: func(cp *c5c3v1alpha1.ControlPlane) (*c5c3v1alpha1.ControlPlaneStatus, *[]metav1.Condition, *int64) {
			return &cp.Status, &cp.Status.Conditions, &cp.Status.ObservedGeneration
		}}
}

// requeue is the delay before the next unprompted pass.
func (r *Reconciler) requeue(held, ready bool) time.Duration {
	switch {
	case held:
		return r.opts.FailureConfirmation
	case !ready:
		return r.opts.RetryInterval
	}
	return r.opts.RecheckInterval
}
