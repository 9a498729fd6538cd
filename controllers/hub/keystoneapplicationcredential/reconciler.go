package keystoneapplicationcredential

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/atrest"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/lockedmap"
)

// Reconciler reconciles KeystoneApplicationCredentials on every engaged
// cluster: children on the management cluster, the order and its delivered
// Secret on the order's cluster.
type Reconciler struct {
	orders.Base
	now func() time.Time
	// probes holds each order's last probe; logins the password generation whose
	// login Keystone refused (ErrLoginRefused).
	resync  time.Duration
	prober  Prober
	probes  lockedmap.Map[string, probeRecord]
	revoker Revoker
	logins  lockedmap.Map[string, int64]
	roles   RoleLister
	budget  *orders.RotationBudget
	// rest is the at-rest record per order (probe), checker the cheap check,
	// loginPeriod the spacing of token requests at rest.
	rest        atrest.Memory
	checker     atrest.Checker
	loginPeriod time.Duration
}

type (
	orderObj    = *c5c3v1alpha1.KeystoneApplicationCredential
	orderStatus = c5c3v1alpha1.KeystoneApplicationCredentialStatus
)

// loop is the order loop under lifecycle.StatusWriter.OptimisticLock.
func (r *Reconciler) loop() orders.Loop[orderObj, orderStatus] {
	l := orders.NewLoop[orderObj, orderStatus](r.Base, kind{r}, orders.KindKeystoneApplicationCredential,
		c5c3v1alpha1.FinalizerKeystoneApplicationCredentialTeardown,
		func(ac orderObj) (*orderStatus, *[]metav1.Condition, *int64) {
			return &ac.Status, &ac.Status.Conditions, &ac.Status.ObservedGeneration
		}, func() metav1.Time { return metav1.NewTime(r.now()) })
	l.Status.OptimisticLock = true
	return l
}

// Reconcile runs one pass for a KeystoneApplicationCredential on
// req.ClusterName (docs/reference/keystoneapplicationcredential.md).
func (r *Reconciler) Reconcile(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
	return r.loop().Reconcile(ctx, req)
}

type kind struct{ *Reconciler }

func (kind) New() orderObj { return &c5c3v1alpha1.KeystoneApplicationCredential{} }

func (kind) PlaneRef(ac orderObj) c5c3v1alpha1.ControlPlaneRefSpec { return ac.Spec.ControlPlaneRef }

// TeardownRequeue is how soon a teardown that waits on K-ORC or ESO looks
// again when no watched event arrives.
const TeardownRequeue = 10 * time.Second

// Teardown is the c5c3.io/keystoneapplicationcredential-teardown deletion
// path in two phases (docs/reference/keystoneapplicationcredential.md,
// "Deletion Semantics"): first the PushSecret (the OpenBao path), every
// credential-v<N> (K-ORC deletes it in Keystone through mint-cloud), every
// secret-v<N> and the source Secret; once none is listed, mint-cloud, the
// scope's Role and Service imports and the delivered Secret. The mint-cloud
// document is not rebuilt here (a user password rotated during the teardown
// strands the finalizer, as that page says).
func (k kind) Teardown(p *orders.Pass[orderObj]) orders.Teardown[orderObj] {
	q := k.newPass(p)
	return orders.Teardown[orderObj]{Finalizer: c5c3v1alpha1.FinalizerKeystoneApplicationCredentialTeardown, Forget: q.forget,
		Phases: []orders.Phase[orderObj]{
			{Sets: []orders.ChildSet{{List: pushList}, {List: credentialList, Select: q.ownCredential}, {List: secretList, Select: q.generational}}},
			{Sets: []orders.ChildSet{{List: secretList}, {List: roleList}, {List: serviceList}}, After: q.deleteDelivered},
		},
		WaitRequeue: TeardownRequeue}
}

func (k kind) Start(p *orders.Pass[orderObj]) orders.Actuator[orderStatus] {
	q := k.newPass(p)
	q.obs = applicationcredential.Observation{Gate: p.Gate, SecretName: orders.SecretName(p.Obj.Name)}
	return q
}
