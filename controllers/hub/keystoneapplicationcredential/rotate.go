package keystoneapplicationcredential

import (
	"context"
	"errors"
	"fmt"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/korc"
)

// admitBudget spends one token of the namespace's budget for d, an
// ActionCreate of a budgeted trigger (the first credential too), or holds it while the budget is spent
// (docs/reference/controlplane.md, "Rotation budget").
func (p *pass) admitBudget(d applicationcredential.Decision) applicationcredential.Decision {
	if d.Action != applicationcredential.ActionCreate || !applicationcredential.Budgeted(d.Trigger) {
		return d
	}
	hold := p.r.budget.Take(p.cp, p.ord, p.now)
	if !hold.Held() {
		return d
	}
	until := p.now.Add(hold.Wait)
	p.budgetUntil = &until
	what := fmt.Sprintf("the rotation to generation %d (trigger %s)", d.Generation, d.Trigger)
	if d.Trigger == applicationcredential.TriggerInitial {
		what = fmt.Sprintf("the first credential (generation %d)", d.Generation)
	}
	p.obs.BudgetHeld = hold.Message(what, p.now)
	return applicationcredential.Decision{Action: applicationcredential.ActionHold, Redeliver: d.Redeliver}
}

// carryOut carries out d (docs/reference/keystoneapplicationcredential.md, "Rotation").
func (p *pass) carryOut(ctx context.Context, d applicationcredential.Decision) error {
	switch d.Action {
	case applicationcredential.ActionCreate:
		if err := p.createGeneration(ctx, d.Generation); err != nil {
			return err
		}
		if p.st.CredentialGeneration > 0 {
			p.event(corev1.EventTypeNormal, EventRotationStarted, "Rotate",
				"creating generation %d beside delivered generation %d (trigger %s)", d.Generation, p.st.CredentialGeneration, d.Trigger)
		}
	case applicationcredential.ActionSwitch:
		o := p.credObjs[d.Generation]
		id := korc.IDOf(o)
		if id == "" {
			return nil // Available without an id: wait for K-ORC's status
		}
		prev := p.st.CredentialGeneration
		p.obs.Rejected = false // a probe judged the superseded credential
		p.st = applicationcredential.Switch(p.st, p.schedule, p.now, d.Generation, id, expiresAtOf(o))
		p.confirmIssued(o, id)
		if prev > 0 {
			p.rotated = true
			p.event(corev1.EventTypeNormal, EventRotationSwitched, "Rotate",
				"switched to generation %d; generation %d is deleted at %s", d.Generation, prev,
				p.st.PreviousCredentialDeleteAt.UTC().Format(time.RFC3339))
		}
	case applicationcredential.ActionDeleteFailed:
		if err := p.deleteGeneration(ctx, d.Generation); err != nil {
			return err
		}
		p.failures++
		p.event(corev1.EventTypeNormal, EventFailedDeleted, "Rotate",
			"deleting failed generation %d: spec.credentialGeneration was raised above it", d.Generation)
	case applicationcredential.ActionReplaceFailed:
		// See applicationcredential.Input.replaceFailed for this deviation.
		if err := p.deleteGeneration(ctx, d.Generation); err != nil {
			return err
		}
		p.failures++
		msg := "the live generation %d is due for rotation, expiring or gone"
		if d.Replace == applicationcredential.ReplacePasswordRotated {
			msg = "K-ORC could not authenticate (401) and the user's password has since rotated; live generation %d stays delivered"
		}
		p.event(corev1.EventTypeWarning, EventFailedReplaced, "Rotate",
			"deleting failed generation %d to create it anew: "+msg, d.Generation, p.st.CredentialGeneration)
	case applicationcredential.ActionDeletePrevious:
		return p.deletePrevious(ctx, d.Generation)
	}
	return nil
}

// deletePrevious deletes generation gen and clears status.previousCredential*
// once it is unlisted and confirmRevoked
// (docs/reference/keystoneapplicationcredential.md, "Rotation", step 3).
func (p *pass) deletePrevious(ctx context.Context, gen int64) error {
	if o, listed := p.credObjs[gen]; listed {
		if o.DeletionTimestamp.IsZero() {
			p.warnRevokedBeforeRollout(gen)
			return p.deleteLocal(ctx, &orcv1alpha1.ApplicationCredential{}, o.Name)
		}
		return nil
	}
	if !p.confirmRevoked(ctx, gen) {
		return nil
	}
	if err := p.deleteGeneration(ctx, gen); err != nil {
		return err
	}
	p.st.PreviousCredentialID, p.st.PreviousCredentialGeneration, p.st.PreviousCredentialDeleteAt = "", 0, nil
	p.event(corev1.EventTypeNormal, EventPreviousDeleted, "Rotate", "generation %d is deleted from Keystone", gen)
	return nil
}

// confirmRevoked reports whether the superseded credential of gen may be
// forgotten: Keystone no longer holds it (Revoker). A refused login is not
// retried until the password generation changes. Once the live credential is
// dying it is forgotten on K-ORC's word (EventPreviousUnconfirmed)
// (docs/reference/keystoneapplicationcredential.md, "Rotation").
func (p *pass) confirmRevoked(ctx context.Context, gen int64) bool {
	id := p.st.PreviousCredentialID
	if id == "" || p.mint == nil {
		return true
	}
	var err error
	if g, refused := p.r.logins.Get(p.prefix, nil); refused && g == p.passwordGen {
		err = ErrLoginRefused // not tried again with this password
	} else {
		var existed bool
		existed, err = p.r.revoker(ctx, RevokeRequest{Mint: *p.mint, CredentialID: id})
		if err == nil {
			p.r.logins.Delete(p.prefix)
			if existed {
				p.event(corev1.EventTypeWarning, EventPreviousRevoked, "Rotate",
					"K-ORC released generation %d while Keystone still held its credential %s; deleted it from Keystone as its user", gen, id)
			}
			return true
		}
		if errors.Is(err, ErrLoginRefused) {
			p.r.logins.Put(p.prefix, p.passwordGen)
		}
	}
	var urgent string
	switch exp := p.st.CredentialExpiresAt; {
	case exp != nil && !p.now.Before(exp.Add(-p.schedule.GracePeriod)):
		urgent = "the live credential expires at " + exp.UTC().Format(time.RFC3339)
	case p.obs.Rejected:
		urgent = "Keystone rejects the live credential"
	case p.obs.LostSecret != "":
		urgent = "the live credential's secret is lost"
	}
	if urgent != "" {
		p.event(corev1.EventTypeWarning, EventPreviousUnconfirmed, "Rotate",
			"could not confirm that superseded generation %d (%s) is gone from Keystone (%v); forgotten on K-ORC's word because %s and its rotation must start",
			gen, id, err, urgent)
		return true
	}
	p.revokePending = true
	logf.FromContext(ctx).Info("the superseded credential is not confirmed gone from Keystone yet; looked at again",
		"generation", gen, "credential", id, "retryAfter", NotReadyRequeue.String(), "error", err.Error())
	return false
}
