package keystoneservice

import (
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// pass is one normal pass: both blocks, each reading the gate itself.
type pass struct {
	r     *Reconciler
	p     *orders.Pass[ksObj]
	conds []metav1.Condition
	st    c5c3v1alpha1.KeystoneServiceStatus
}

func (a *pass) Act(ctx context.Context) error {
	ks, cp := a.p.Obj, a.p.Plane
	var errs []error
	catalog, catStatus := a.r.catalogBlock(ctx, ks, cp, a.p.Gate, &errs)
	account, accStatus := a.r.accountBlock(ctx, ks, cp, a.p.Gate, &errs)
	a.conds = Conditions(catalog, account, ks.Generation)
	a.st = ks.Status
	a.st.Catalog, a.st.Account = catStatus, accStatus
	return errors.Join(errs...)
}

// Gated is Act: a closed gate keeps each block's status and changes nothing.
func (a *pass) Gated(ctx context.Context) error { return a.Act(ctx) }

func (a *pass) Status() lifecycle.StatusUpdate[c5c3v1alpha1.KeystoneServiceStatus] {
	return lifecycle.StatusUpdate[c5c3v1alpha1.KeystoneServiceStatus]{Fields: a.st, Conditions: a.conds, Now: a.r.now()}
}

func (a *pass) Requeue() time.Duration {
	if meta.IsStatusConditionTrue(a.conds, c5c3v1alpha1.ConditionReady) {
		return ReadyResync
	}
	return NotReadyRequeue
}
