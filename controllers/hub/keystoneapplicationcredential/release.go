package keystoneapplicationcredential

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// weighRelease weighs the superseded credential against the consumers of the
// delivered Secret (consumers.ReleaseSuperseded): status.consumers of the
// last pass and the Secret's acknowledgement, with previousCredentialDeleteAt
// as the upper bound (docs/reference/consumers.md, "Revocation waits for the
// consumers").
func (p *pass) weighRelease(in *applicationcredential.Input, delivered *corev1.Secret) {
	if p.st.PreviousCredentialGeneration == 0 || p.st.PreviousCredentialDeleteAt == nil {
		return
	}
	ack := ""
	if delivered != nil && !p.obs.ForeignSecret {
		ack = delivered.Annotations[c5c3v1alpha1.AnnotationAcknowledged]
	}
	p.release = consumers.ReleaseSuperseded(consumers.Superseded{Statuses: p.st.Consumers,
		Want: consumers.StampValue(p.ord.Kind, p.ac.Name, p.st.CredentialGeneration), Ack: ack,
		Now: p.now, Bound: p.st.PreviousCredentialDeleteAt.Time})
	in.ConsumersReleased = p.release.Early
}

// warnRevokedBeforeRollout records consumers.EventRevokedBeforeRollout and
// counts it (orderhub_credential_revoked_before_rollout_total) when
// generation gen goes at its bound while consumers are still waited for.
func (p *pass) warnRevokedBeforeRollout(gen int64) {
	if p.release.Early || len(p.release.Waiting) == 0 {
		return
	}
	orders.RecordRevokedBeforeRollout(p.ord)
	p.event(corev1.EventTypeWarning, consumers.EventRevokedBeforeRollout, "Rotate",
		"generation %d is revoked at the end of its grace period while these consumers are not on generation %d: %s",
		gen, p.st.CredentialGeneration, strings.Join(p.release.Waiting, ", "))
}
