package keystoneapplicationcredential

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/korc"
)

// Act runs the pass behind an open gate and recomputes status.nextRotation
// (docs/reference/keystoneapplicationcredential.md, "Status").
func (p *pass) Act(ctx context.Context) error {
	err := p.run(ctx)
	p.st = applicationcredential.WithNextRotation(p.st, p.schedule)
	return err
}

// Gated changes nothing (docs/reference/keystoneapplicationcredential.md, "Consent").
func (*pass) Gated(context.Context) error { return nil }

// run observes, probes, carries out the decided step and delivers.
// Kubernetes-level failures are recorded in p.obs and returned.
func (p *pass) run(ctx context.Context) error {
	in := applicationcredential.InputFrom(p.ac, p.now)
	refs, secret, err := p.observeCredentials(ctx, &in)
	if err != nil {
		p.obs.CredentialError = err
		return err
	}
	delivered, err := p.observeDelivered(ctx, &in)
	if err != nil {
		p.obs.DeliveryError = err
		return err
	}
	if in.Refusal.Passed() {
		p.probe(ctx, &in, secret, refs.ca, refs.UserID)
	}
	in.ScopeChanged = p.st.CredentialGeneration > 0 && p.scopeChanged()
	p.weighRelease(&in, delivered)
	d, err := p.admitScope(ctx, applicationcredential.Decide(in))
	if err != nil {
		p.obs.CredentialError = err
		return err
	}
	d = p.admitBudget(d)
	if err := p.carryOut(ctx, d); err != nil {
		p.obs.CredentialError = err
		return err
	}
	if err := p.clearLatchedTransportErrors(ctx); err != nil {
		p.obs.TransportRetryError = err
	}
	p.classifyFirst()
	p.obs.Previous = p.st.PreviousCredentialGeneration
	if p.obs.Previous > 0 && !p.release.Revoke {
		p.obs.PreviousWaiting, p.obs.PreviousDeleteAt = p.release.Waiting, timeOf(p.st.PreviousCredentialDeleteAt)
	}
	p.deliver(ctx, delivered)
	return p.obs.DeliveryError
}

// observeCredentials reads the references, writes the mint-cloud document,
// lists the generations and returns the live generation's secret.
func (p *pass) observeCredentials(ctx context.Context, in *applicationcredential.Input) (refsRead, []byte, error) {
	refs, err := p.references(ctx)
	if err != nil {
		return refs, nil, err
	}
	in.Refusal = applicationcredential.RefusalOf(refs.References)
	p.obs.Refusal = in.Refusal
	if in.Refusal.Passed() {
		if err := p.writeMintCloud(ctx, refs); err != nil {
			return refs, nil, err
		}
		p.passwordGen = refs.User.Status.PasswordGeneration
		in.PasswordGeneration = p.passwordGen
		m := p.mintParams(refs)
		p.mint = &m
	}
	if err := p.listCredentials(ctx); err != nil {
		return refs, nil, err
	}
	in.Credentials = p.creds
	cur := p.st.CredentialGeneration
	if cur == 0 {
		return refs, nil, nil
	}
	secret, ok, err := p.secretValue(ctx, cur)
	if err != nil {
		return refs, nil, err
	}
	// The live secret lives only in secret-v<N> and the backup
	// (docs/reference/keystoneapplicationcredential.md, "Rotation").
	in.SecretLost = !ok
	if !ok {
		p.obs.LostSecret = p.ns + "/" + p.child(korc.SecretDiscriminator(cur))
	}
	return refs, secret, nil
}

// observeDelivered reads the delivered Secret and whether it carries the
// current document and credential id.
func (p *pass) observeDelivered(ctx context.Context, in *applicationcredential.Input) (*corev1.Secret, error) {
	delivered, foreign, err := p.readDelivered(ctx)
	if err != nil {
		return nil, err
	}
	p.obs.ForeignSecret = foreign
	data, ok, err := p.currentData(ctx)
	if err != nil {
		return nil, err
	}
	if ok && !foreign {
		in.Delivered = carries(delivered, data)
	}
	in.DeliveredID = !foreign && carriesID(delivered, p.st.CredentialID)
	return delivered, nil
}

// classifyFirst sets p.obs.Classified against an External plane.
func (p *pass) classifyFirst() {
	if p.st.CredentialGeneration != 0 || !controlplane.IsExternal(p.cp) {
		return
	}
	if s, ok := applicationcredential.Successor(p.creds, 0); ok {
		if reason, ok := korc.ClassifyExternal(s.State); ok {
			p.obs.Classified = conditions.Gate{Reason: reason, Message: fmt.Sprintf(
				"K-ORC cannot create generation %d: %s", s.Generation, s.State.Message)}
		}
	}
}
