package keystoneapplicationcredential

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// NotReadyRequeue is the longest a not converged order waits: Keystone state
// is not watched.
const NotReadyRequeue = 30 * time.Second

func (p *pass) Status() lifecycle.StatusUpdate[orderStatus] {
	p.obs.Current = p.st.CredentialGeneration
	p.obs.Credentials = p.creds
	p.obs.ExpiredNow = applicationcredential.Expired(timeOf(p.st.CredentialExpiresAt), p.now)
	p.conds = applicationcredential.Conditions(p.obs, p.ac.Generation)
	m := orders.CredentialMetrics{ExpiresAt: timeOf(p.st.CredentialExpiresAt), NextRotation: timeOf(p.st.NextRotation),
		GracePeriod: p.schedule.GracePeriod, Failing: p.conds[0].Reason == c5c3v1alpha1.ReasonCredentialFailed}
	return lifecycle.StatusUpdate[orderStatus]{Fields: p.st, Conditions: p.conds, Now: metav1.NewTime(p.now),
		Written: func() { p.recordWritten(m) }}
}

// recordWritten records the credential gauges and the pass's rotations and
// failed rotations once its status is written (docs/reference/metrics.md).
func (p *pass) recordWritten(m orders.CredentialMetrics) {
	orders.RecordCredential(p.ord, m)
	if p.rotated {
		orders.RecordRotation(p.ord)
	}
	for range p.failures {
		orders.RecordRotationFailure(p.ord)
	}
}

// Requeue is applicationcredential.RequeueAfter, at most NotReadyRequeue while
// not Ready and ReadyResync once Ready.
func (p *pass) Requeue() time.Duration {
	in := applicationcredential.InputFrom(p.ac, p.now)
	in.Gate = p.gate
	in.HeldUntil = p.budgetUntil
	onTarget := p.ord.OnTargetCluster()
	wait := applicationcredential.RequeueAfter(in, onTarget)
	ready := p.conds[2].Status == metav1.ConditionTrue
	if p.gate.Passed() && !ready && (wait == 0 || wait > NotReadyRequeue) {
		wait = NotReadyRequeue
	}
	if p.revokePending && (wait == 0 || wait > NotReadyRequeue) {
		wait = NotReadyRequeue
	}
	if p.gate.Passed() && ready && (wait == 0 || wait > p.r.resync) {
		wait = p.r.resync
	}
	return orders.CapTarget(wait, onTarget)
}
