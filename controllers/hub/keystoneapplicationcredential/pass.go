package keystoneapplicationcredential

import (
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/apply"
	"github.com/c5c3/orderhub/korc"
)

type pass struct {
	r        *Reconciler
	oc       client.Client // the order's cluster
	ac       *c5c3v1alpha1.KeystoneApplicationCredential
	ord      orders.Order
	cp       *c5c3v1alpha1.ControlPlane
	gate     conditions.Gate // the shared gate (orders.GateOf); unset in teardown
	ns       string          // the plane's namespace, where the children live
	prefix   string          // korc.ChildPrefix of the order
	lbl      map[string]string
	now      time.Time
	schedule applicationcredential.Schedule
	st       c5c3v1alpha1.KeystoneApplicationCredentialStatus
	obs      applicationcredential.Observation
	conds    []metav1.Condition // the pass's conditions (Status)
	creds    []applicationcredential.Credential
	credObjs map[int64]*orcv1alpha1.ApplicationCredential
	// passwordGen is the user's password generation used this pass (0: none).
	passwordGen int64
	// mint is set once the references passed.
	mint *applicationcredential.MintParams
	// revokePending: a superseded credential is not confirmed gone yet.
	revokePending bool
	// rotated and failures are the rotations switched and the failed
	// generations deleted this pass; they are counted once the status that
	// records them is written (Status), so a pass retried after a conflict
	// counts nothing twice.
	rotated  bool
	failures int
	// budgetUntil is when the rotation budget frees the rotation it withheld
	// this pass (nil: none withheld).
	budgetUntil *time.Time
	// release is the consumers' verdict on the superseded credential (release.go).
	release consumers.Release
}

// event records an event on the order (orders.Event).
func (p *pass) event(typ, reason, action, format string, args ...any) {
	orders.Event(p.r.Recorder, p.ord, p.ac, typ, reason, action, format, args...)
}

func (r *Reconciler) newPass(p *orders.Pass[orderObj]) *pass {
	ac, ord := p.Obj, p.Order
	planeNS, _ := orders.PlaneKey(ac.Spec.ControlPlaneRef, ac.Namespace)
	return &pass{r: r, oc: p.Client, ac: ac, ord: ord, cp: p.Plane, gate: p.Gate, ns: planeNS,
		now:      r.now().UTC().Truncate(time.Second), // metav1.Time keeps seconds
		prefix:   korc.ChildPrefix(ac.Name, korc.OrderKey(ord.Cluster, ord.Namespace, ord.Name), korc.InfixApplicationCredential),
		lbl:      orders.ChildLabels(ord),
		schedule: applicationcredential.ScheduleOf(&ac.Spec),
		st:       *ac.Status.DeepCopy()}
}

func isNotOwned(err error) bool { return apply.IsNotOwned(err) }

func timeOf(t *metav1.Time) *time.Time {
	if t == nil {
		return nil
	}
	return &t.Time
}
