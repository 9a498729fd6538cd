package keystoneapplicationcredential

import (
	"cmp"
	"context"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/atrest"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
)

// EventCredentialRejected (Warning): Keystone rejected a token request with
// the delivered credential (401/404): it was deleted out of band and is
// replaced like an expired one.
const EventCredentialRejected = "CredentialRejected"

// ProbeRequest is what a Prober authenticates with: the delivered
// generation's application credential against the Keystone the hub reaches
// (controlplane.AuthURL), verified with the plane's CA bundle when it has
// one.
type ProbeRequest struct {
	AuthURL    string
	ID, Secret string
	CABundle   []byte
}

// Prober requests a token with an application credential; nil when
// Keystone issued one, else the failure (atrest.ClassifyLogin's
// LoginRefused tells an answer that the credential is gone).
type Prober func(ctx context.Context, r ProbeRequest) error

// KeystoneProbe is the default Prober: a real gophercloud
// application-credential token request (v3applicationcredential).
func KeystoneProbe(ctx context.Context, r ProbeRequest) error {
	ctx, cancel := context.WithTimeout(ctx, keystoneTimeout)
	defer cancel()
	pc, tr, err := controlplane.NewProviderClient(r.AuthURL, r.CABundle, keystoneTimeout)
	if err != nil {
		return err
	}
	defer tr.CloseIdleConnections()
	return openstack.Authenticate(ctx, pc, gophercloud.AuthOptions{IdentityEndpoint: r.AuthURL,
		ApplicationCredentialID: r.ID, ApplicationCredentialSecret: r.Secret})
}

// probeRecord is the last verification of one order's delivered credential.
type probeRecord struct {
	id       string    // the credential id verified
	at       time.Time // when the clock started or the last probe ran
	rejected bool      // Keystone rejected it (401/404)
}

// probe verifies the delivered credential when applicationcredential.
// ProbeDue says so (a converged order, every Options.ReadyResync) with the
// shared at-rest recipe (atrest.Memory.Verify): a cheap admin read of the
// credential of user userID, and a token request with it (Prober) only for
// a credential not yet confirmed, after a change or failure, or once per
// Options.LoginPeriod spread by the order's UID
// (docs/reference/keystoneapplicationcredential.md, "What is detected how
// fast"). It sets in.Rejected and p.obs.Rejected from the record of the
// current credential id. secret is secret-v<Current>'s value, ca the plane's
// CA bundle. A failure other than a rejection is logged and retried a resync
// later.
func (p *pass) probe(ctx context.Context, in *applicationcredential.Input, secret, ca []byte, userID string) {
	key, id := p.prefix, p.st.CredentialID
	rec, _ := p.r.probes.Get(key, nil)
	if rec.id != id || id == "" {
		rec = probeRecord{id: id, at: p.now} // a new credential: start the clock
		p.r.probes.Put(key, rec)
	}
	out := p.r.rest.Verify(ctx, atrest.Step{Key: key, Due: len(secret) > 0 && applicationcredential.ProbeDue(*in, rec.at, p.r.resync),
		Changed: userID == "", Subject: id, UID: p.ac.UID, Now: p.now, LoginPeriod: p.r.loginPeriod,
		Check: func(ctx context.Context) (atrest.Finding, error) {
			return p.r.checker.Credential(ctx, p.r.Local, p.cp, userID, id, p.now)
		},
		Login: func(ctx context.Context) error {
			return p.r.prober(ctx, ProbeRequest{AuthURL: controlplane.AuthURL(p.cp), ID: id, Secret: string(secret), CABundle: ca})
		}})
	if out.Did != atrest.Nothing {
		rec.at = p.now
	}
	log := logf.FromContext(ctx)
	if out.CheckErr != nil {
		log.Info("the cheap check of the delivered credential failed; authenticated with it instead", "error", out.CheckErr.Error())
	}
	switch {
	case out.Gone != nil || atrest.ClassifyLogin(out.LoginErr) == atrest.LoginRefused:
		rec.rejected = true
		p.event(corev1.EventTypeWarning, EventCredentialRejected, "Verify",
			"Keystone rejects delivered generation %d (%s): %v. A new generation replaces it",
			p.st.CredentialGeneration, id, cmp.Or(out.Gone, out.LoginErr))
	case out.LoginErr != nil:
		log.Info("verifying the delivered credential failed; retried a resync later",
			"generation", p.st.CredentialGeneration, "error", out.LoginErr.Error())
	}
	p.r.probes.Put(key, rec)
	in.Rejected, p.obs.Rejected = rec.rejected, rec.rejected
}

// confirmIssued records credential id of the K-ORC ApplicationCredential o,
// which the pass switches to, as confirmed in the at-rest record under the
// key and subject probe uses (atrest.Memory.Confirm) when Keystone issued
// it as specified (applicationcredential.IssuedAsSpecified): its first
// verification at rest is then a cheap check, else a token request
// (docs/reference/keystoneapplicationcredential.md, "What is detected how
// fast"). It asks Keystone nothing.
func (p *pass) confirmIssued(o *orcv1alpha1.ApplicationCredential, id string) {
	if applicationcredential.IssuedAsSpecified(o) {
		p.r.rest.Confirm(p.prefix, id, p.ac.UID, p.now)
	}
}
