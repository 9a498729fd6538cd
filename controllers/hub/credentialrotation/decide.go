package credentialrotation

import (
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// Action is what a pass does with a CredentialRotation.
type Action string

const (
	// Refuse: report the condition and do nothing.
	Refuse Action = "Refuse"
	// Wait: report the condition and look again later.
	Wait Action = "Wait"
	// Nudge: write the rotation request on the KeystoneService, then
	// report RotationTriggered.
	Nudge Action = "Nudge"
	// Done: this generation was acted on already.
	Done Action = "Done"
)

// Decision is an action with the Ready condition to report.
type Decision struct {
	Action Action
	Ready  metav1.Condition
}

// RequestValue is the rotation request annotation value of cr's current
// generation: "<uid>/<generation>", distinct per CredentialRotation and
// per spec change.
func RequestValue(cr *c5c3v1alpha1.CredentialRotation) string {
	return string(cr.UID) + "/" + strconv.FormatInt(cr.Generation, 10)
}

// Decide maps a CredentialRotation and the KeystoneService it names (nil
// when absent) to an action. A rotation fires once per spec generation
// (status.lastTriggeredGeneration latches it): creating the object is the
// request (docs/reference/keystoneservice.md, "ServiceAccountRotationSpec": "To
// rotate a password on demand, create a CredentialRotation ..."). The hub
// supports target serviceAccountPassword with spec.keystoneService;
// ControlPlane service accounts and the admin application credential are not
// provisioned by this hub, so those targets are refused with UnsupportedTarget.
func Decide(cr *c5c3v1alpha1.CredentialRotation, ks *c5c3v1alpha1.KeystoneService) Decision {
	c := metav1.Condition{Type: c5c3v1alpha1.ConditionReady, Status: metav1.ConditionFalse, ObservedGeneration: cr.Generation}
	d := func(a Action, status metav1.ConditionStatus, reason, msg string) Decision {
		c.Status, c.Reason, c.Message = status, reason, msg
		return Decision{Action: a, Ready: c}
	}
	switch {
	case cr.Spec.Target != c5c3v1alpha1.CredentialRotationTargetServiceAccountPassword:
		return d(Refuse, metav1.ConditionFalse, c5c3v1alpha1.ReasonUnsupportedTarget,
			"this hub authenticates K-ORC with the plane's admin password and mints no admin application credential: nothing to rotate")
	case cr.Spec.KeystoneService == "":
		return d(Refuse, metav1.ConditionFalse, c5c3v1alpha1.ReasonUnsupportedTarget,
			"this hub does not provision ControlPlane service accounts (spec.serviceAccount): name a KeystoneService in spec.keystoneService instead")
	case cr.Status.LastTriggeredGeneration >= cr.Generation:
		return Decision{Action: Done}
	case ks == nil:
		return d(Wait, metav1.ConditionFalse, c5c3v1alpha1.ReasonKeystoneServiceNotFound, fmt.Sprintf(
			"KeystoneService %s/%s does not exist", cr.Namespace, cr.Spec.KeystoneService))
	case ks.Spec.Account == nil:
		return d(Wait, metav1.ConditionFalse, c5c3v1alpha1.ReasonUnknownServiceAccount, fmt.Sprintf(
			"KeystoneService %s declares no account block: there is no password to rotate", ks.Name))
	case ks.Status.Account == nil || ks.Status.Account.PasswordGeneration == 0:
		return d(Wait, metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForServiceAccount, fmt.Sprintf(
			"KeystoneService %s has not delivered a first password yet; the rotation fires once it has", ks.Name))
	}
	return d(Nudge, metav1.ConditionTrue, c5c3v1alpha1.ReasonRotationTriggered, fmt.Sprintf(
		"requested a new password for KeystoneService %s after generation %d; it reports AccountReady=True again once the new generation is delivered",
		ks.Name, ks.Status.Account.PasswordGeneration))
}
