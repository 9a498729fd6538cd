package keystoneuser

import (
	"bytes"
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// VerifyDue reports whether a pass checks the applied password with
// Keystone before delivering it: always when unchanged is false, else when
// last is zero or interval has passed since (interval <= 0: every pass)
// (docs/reference/keystoneuser.md, "Rotation").
func VerifyDue(unchanged bool, last, now time.Time, interval time.Duration) bool {
	return !unchanged || last.IsZero() || now.Sub(last) >= interval
}

// verifiedKey is the order's key in the reconciler's record of checks.
func verifiedKey(o orders.Order) string { return o.Cluster + "/" + o.Namespace + "/" + o.Name }

// lastVerified is when Keystone last accepted the order's delivered
// password in this process (zero: never).
func (r *Reconciler) lastVerified(o orders.Order) time.Time {
	if v, ok := r.verified.Load(verifiedKey(o)); ok {
		if t, ok := v.(time.Time); ok {
			return t
		}
	}
	return time.Time{}
}

func (r *Reconciler) markVerified(o orders.Order, t time.Time) { r.verified.Store(verifiedKey(o), t) }

func (r *Reconciler) forgetVerified(o orders.Order) { r.verified.Delete(verifiedKey(o)) }

// deliveredIs reports whether the delivered Secret on the order's cluster
// carries pw under its password key (false when the Secret is absent).
// Errors: a read failure other than NotFound.
func (p *pass) deliveredIs(ctx context.Context, pw []byte) (bool, error) {
	var s corev1.Secret
	err := p.oc.Get(ctx, types.NamespacedName{Namespace: p.ku.Namespace, Name: orders.SecretName(p.ku.Name)}, &s)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return bytes.Equal(s.Data[deliveredKeyPassword], pw), nil
}
