package controlplane

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// Observation is what one pass learned; the first failing step decides
// AdminCredentialReady.
type Observation struct {
	// PasswordMissing says why the admin password is unreadable ("": read).
	PasswordMissing string
	// CABundleMissing says why the configured CA bundle is unreadable.
	CABundleMissing string
	// WriteError is a failure writing the admin clouds.yaml Secrets.
	WriteError error
	// AuthReason and AuthMessage classify a failed token request (Classify);
	// AuthReason is empty when Keystone issued a token.
	AuthReason, AuthMessage string
	// StoreNotReady says why the own-namespace SecretStore is not Ready.
	StoreNotReady string
}

// AdminCredentialCondition derives AdminCredentialReady from o, first
// failing step wins (docs/reference/controlplane.md, "AdminCredentialReady").
func AdminCredentialCondition(o Observation, generation int64) metav1.Condition {
	c := metav1.Condition{Type: c5c3v1alpha1.ConditionAdminCredentialReady, Status: metav1.ConditionFalse,
		ObservedGeneration: generation}
	switch {
	case o.PasswordMissing != "":
		c.Reason, c.Message = c5c3v1alpha1.ReasonWaitingForCloudsYaml, o.PasswordMissing
	case o.CABundleMissing != "":
		c.Reason, c.Message = c5c3v1alpha1.ReasonWaitingForCABundle, o.CABundleMissing
	case o.WriteError != nil:
		c.Reason, c.Message = c5c3v1alpha1.ReasonWaitingForCloudsYaml,
			fmt.Sprintf("writing the admin clouds.yaml Secrets: %v", o.WriteError)
	case o.AuthReason != "":
		c.Reason, c.Message = o.AuthReason, o.AuthMessage
	case o.StoreNotReady != "":
		c.Reason, c.Message = c5c3v1alpha1.ReasonSecretStoreNotReady, o.StoreNotReady
	default:
		c.Status, c.Reason = metav1.ConditionTrue, c5c3v1alpha1.ReasonAdminCredentialReady
		c.Message = "Keystone accepts the admin credential; the admin clouds.yaml Secrets are written"
	}
	return c
}

// ReadyCondition is the aggregate: True/AllReady when every condition in
// subs is True, else False/NotAllReady naming the first that is not.
func ReadyCondition(subs []metav1.Condition, generation int64) metav1.Condition {
	for _, s := range subs {
		if s.Status != metav1.ConditionTrue {
			return metav1.Condition{Type: c5c3v1alpha1.ConditionReady, Status: metav1.ConditionFalse,
				Reason: c5c3v1alpha1.ReasonNotAllReady, ObservedGeneration: generation,
				Message: fmt.Sprintf("%s is %s: %s", s.Type, s.Reason, s.Message)}
		}
	}
	return metav1.Condition{Type: c5c3v1alpha1.ConditionReady, Status: metav1.ConditionTrue,
		Reason: c5c3v1alpha1.ReasonAllReady, ObservedGeneration: generation, Message: "all conditions are True"}
}

// Conditions are admin (after HoldTransient), then Ready.
func Conditions(admin metav1.Condition, generation int64) []metav1.Condition {
	return []metav1.Condition{admin, ReadyCondition([]metav1.Condition{admin}, generation)}
}
