package keystoneuser

import (
	"context"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/korc"
)

// FinishFrozenRotation reports whether a frozen order still delivers: K-ORC
// applied generation applied, newer than the delivered status (> 0), and its
// Secret exists (docs/reference/keystoneuser.md, "Consent").
func FinishFrozenRotation(applied, status int64, appliedExists bool) bool {
	return status > 0 && applied > status && appliedExists
}

// finishRotation runs the frozen order's only action: verify, back up,
// deliver and record the applied generation; outcomes land in p.obs.
// Errors: a Kubernetes read failure.
func (p *pass) finishRotation(ctx context.Context) error {
	var user orcv1alpha1.User
	if ok, err := p.get(ctx, p.name(korc.DiscUser), &user); err != nil || !ok {
		return err
	}
	applied, _ := korc.GenerationOfPasswordRef(korc.AppliedPasswordRef(&user))
	if applied <= p.st.PasswordGeneration {
		return nil
	}
	var s corev1.Secret
	ok, err := p.get(ctx, p.name(korc.PasswordDiscriminator(applied)), &s)
	if err != nil {
		return err
	}
	if !FinishFrozenRotation(applied, p.st.PasswordGeneration, ok && s.DeletionTimestamp.IsZero()) {
		return nil
	}
	pw := s.Data[korc.PasswordKey]
	if len(pw) == 0 {
		return nil
	}
	userName, domain := EffectiveUserName(p.ku), EffectiveDomain(p.ku, p.cp)
	if err := p.r.verifier.Verify(ctx, controlplane.TokenRequest{AuthURL: controlplane.AuthURL(p.cp), User: userName,
		Password: string(pw), Domain: domain, Region: controlplane.Region(p.cp), Interface: controlplane.EndpointType(p.cp),
		CABundle: p.caBundle(ctx)}); err != nil {
		return nil // not accepted yet: the next pass tries again
	}
	// Keystone accepted it: the first verification at rest checks cheaply.
	p.r.rest.Confirm(verifiedKey(p.o), restSubject(p.st.UserID, applied, pw), p.ku.UID, p.now)
	var project *c5c3v1alpha1.KeystoneProject
	if ref := p.ku.Spec.DefaultProjectRef; ref != nil {
		var kp c5c3v1alpha1.KeystoneProject
		err := p.oc.Get(ctx, types.NamespacedName{Namespace: p.ku.Namespace, Name: ref.Name}, &kp)
		switch {
		case err == nil:
			project = &kp
		case !apierrors.IsNotFound(err):
			return err
		}
	}
	if err := p.deliver(ctx, pw, domain, ScopeOf(project, p.cp)); err != nil || !p.obs.Delivered {
		return err
	}
	p.st.PasswordGeneration = applied
	p.st.LastPasswordRotation = ptr.To(metav1.NewTime(p.now))
	p.r.markVerified(p.o, p.now)
	p.r.event(p.o, p.ku, corev1.EventTypeNormal, EventPasswordDelivered,
		"the namespace's consent is gone, but K-ORC had applied password generation %d: delivered it so the consumer keeps a working password", applied)
	return nil
}
