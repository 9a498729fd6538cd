package keystoneuser

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/korc"
)

// Observation is what one pass learned; UserCondition and DeliveryCondition
// derive the two sub-conditions from it.
type Observation struct {
	// Gate is the shared gate (orders.GateOf).
	Gate conditions.Gate
	// Plane names the plane for messages.
	Plane string
	// Admin: the order resolves to the plane's admin identity; AdminOwned: and
	// it already owns the managed K-ORC User.
	Admin, AdminOwned bool
	// Project is the defaultProjectRef gate; passed without a reference.
	Project conditions.Gate
	// Error is a Kubernetes-level failure projecting the user (UserError).
	Error error
	// UserExists: the managed K-ORC User exists; Probe is the verdict before.
	UserExists bool
	Probe      korc.ProbeResult
	// Domain is the state of the domain import the user depends on (nil once
	// the managed User exists in the plane's admin domain).
	Domain *korc.State
	// User is the managed K-ORC User's state.
	User korc.State
	// External is true against an External-mode plane.
	External bool
	// Desired is the generation the User's passwordRef names, Applied the
	// one K-ORC applied, Deliverable the applied one when it still exists.
	Desired, Applied, Deliverable int64
	// Rejected is Keystone's refusal of the applied password (Verifier); Stale
	// says the refused password is the delivered one.
	Rejected error
	Stale    bool
	// ClaimHolder names another order holding the user name claim, else "".
	ClaimHolder string
	// StoreHeld: RotationPlan.StoreHeld; StoreMessage says why.
	StoreHeld bool
	// BudgetHeld is orders.BudgetHold.Message of a rotation the budget
	// withheld (RotationPlan.BudgetHeld), else "".
	BudgetHeld string

	// NotPublished is the KeystoneNotPublished gate of DeliveredAuthURL.
	NotPublished conditions.Gate
	// StoreNotReady: the secret store is not Ready (StoreMessage); Pushed: ESO
	// pushed the current document (else PushMessage).
	StoreNotReady bool
	StoreMessage  string
	Pushed        bool
	PushMessage   string
	// Refused is apply.IsNotOwned's error: a foreign same-named Secret.
	Refused error
	// DeliveryError is a Kubernetes-level failure delivering.
	DeliveryError error
	// Delivered: the Secret carries the Deliverable generation.
	Delivered bool
}

// passwordReady reports a user K-ORC made Available with the desired
// password applied and accepted by Keystone.
func (o Observation) passwordReady() bool {
	return o.UserExists && o.User.Phase == korc.PhaseAvailable && o.Deliverable > 0 && o.Applied == o.Desired && o.Rejected == nil
}

// userReady is the UserReady chain, first match wins
// (docs/reference/keystoneuser.md, "Conditions").
var userReady = conditions.Chain[Observation]{
	conditions.GateClosed(func(o Observation) conditions.Gate { return o.Gate }),
	adminIdentity,
	conditions.Failed(c5c3v1alpha1.ReasonUserError, func(o Observation) error { return o.Error }),
	nameClaimed,
	conditions.GateClosed(func(o Observation) conditions.Gate { return o.Project }),
	domainFailed,
	userProbe,
	firstGenerationHeld,
	childrenAvailable,
	passwordAccepted,
	storeReady,
	budgetHeld,
	func(o Observation) (conditions.Verdict, bool) {
		return conditions.True(c5c3v1alpha1.ReasonUserProvisioned, fmt.Sprintf(
			"the user exists in Keystone and K-ORC applied password generation %d", o.Deliverable))
	},
}

// UserCondition derives UserReady from o (userReady).
func UserCondition(o Observation, gen int64) metav1.Condition {
	return userReady.Condition(c5c3v1alpha1.ConditionUserReady, o, gen)
}

// adminIdentity: the order resolves to the plane's admin identity.
func adminIdentity(o Observation) (conditions.Verdict, bool) {
	return conditions.Collision(o.Admin, o.AdminOwned, c5c3v1alpha1.ReasonUserCollision,
		fmt.Sprintf("ControlPlane %s's admin identity was edited onto the user this order owns: change spec.korc.adminCredential on the ControlPlane back; "+
			"do NOT delete this KeystoneUser, its teardown would delete that user from Keystone", o.Plane),
		fmt.Sprintf("the order resolves to ControlPlane %s's admin identity, which is never ordered; nothing was touched: "+
			"delete this KeystoneUser and re-create it with a userName of its own", o.Plane))
}

// nameClaimed: another order holds the claim on the user's name.
func nameClaimed(o Observation) (conditions.Verdict, bool) {
	return conditions.Collision(o.ClaimHolder != "", o.UserExists, c5c3v1alpha1.ReasonUserCollision,
		fmt.Sprintf("another order, %s, holds this user name in the domain, and this order's K-ORC User, created before name claims existed, "+
			"shares that Keystone user: do NOT delete this KeystoneUser, its teardown would delete the user the holder delivers", o.ClaimHolder),
		fmt.Sprintf("another order, %s, holds this user name in the domain; two orders never share a Keystone user and nothing was touched: "+
			"delete this order and re-create it with spec.userName set to a free name (the field is immutable), or delete the other order first", o.ClaimHolder))
}

// domainFailed: K-ORC reports a terminal error on the domain import.
func domainFailed(o Observation) (conditions.Verdict, bool) {
	if d := o.Domain; d != nil && d.Phase == korc.PhaseFailed {
		return conditions.False(c5c3v1alpha1.ReasonUserFailed, fmt.Sprintf("the import of the user's domain: %s: %s", d.Reason, d.Message))
	}
	return conditions.Next()
}

// userProbe: before the managed User exists, the collision probe's verdict.
func userProbe(o Observation) (conditions.Verdict, bool) {
	if o.UserExists {
		return conditions.Next()
	}
	msg := conditions.ProbeWaitMessage(o.Probe, o.Domain, "the import of the user's domain")
	return conditions.Probe{Result: o.Probe, External: o.External,
		Collision: c5c3v1alpha1.ReasonUserCollision, Failed: c5c3v1alpha1.ReasonUserFailed,
		Collided: fmt.Sprintf("a user of this name already exists in the domain (id %s) and this order does not own it; nothing was touched: "+
			"a KeystoneUser never adopts: delete this order and re-create it with spec.userName set to a free name (the field is immutable)", o.Probe.ID),
		Waiting: msg, ExternalWaiting: msg}.Verdict()
}

// firstGenerationHeld: a store not Ready withheld the first generation.
func firstGenerationHeld(o Observation) (conditions.Verdict, bool) {
	switch {
	case o.StoreHeld && o.Desired == 0:
		return conditions.False(c5c3v1alpha1.ReasonSecretStoreNotReady,
			"no password generation is created or handed to K-ORC until the secret store is Ready: "+o.StoreMessage)
	case o.BudgetHeld != "" && o.Desired == 0 && !o.UserExists:
		return conditions.False(c5c3v1alpha1.ReasonRotationBudgetExhausted, "no Keystone user is created yet; "+o.BudgetHeld)
	}
	return conditions.Next()
}

// childrenAvailable: the domain import and the K-ORC User are Available.
func childrenAvailable(o Observation) (conditions.Verdict, bool) {
	var children []conditions.Child
	if o.Domain != nil {
		children = append(children, conditions.Child{What: "the import of the user's domain", State: *o.Domain})
	}
	if o.UserExists {
		children = append(children, conditions.Child{What: "the K-ORC User", State: o.User})
	}
	waiting, v, decided := conditions.Available(children, o.External, c5c3v1alpha1.ReasonUserFailed)
	if decided {
		return v, true
	}
	if !o.UserExists {
		waiting = append(waiting, "the K-ORC User is not created yet")
	}
	if len(waiting) > 0 {
		return conditions.False(c5c3v1alpha1.ReasonWaitingForKeystoneUser, strings.Join(waiting, "; "))
	}
	return conditions.Next()
}

// passwordAccepted: K-ORC applied the desired generation and Keystone accepts it.
func passwordAccepted(o Observation) (conditions.Verdict, bool) {
	switch {
	case o.Deliverable == 0 || o.Applied != o.Desired:
		return conditions.False(c5c3v1alpha1.ReasonWaitingForKeystoneUser,
			fmt.Sprintf("K-ORC has not applied password generation %d to the user yet", o.Desired))
	case o.Rejected != nil && o.Stale:
		return conditions.False(c5c3v1alpha1.ReasonUserFailed, fmt.Sprintf(
			"Keystone rejects the delivered password (generation %d); the user was changed or deleted outside orderhub: "+
				"raise spec.passwordGeneration or re-create the order: %v", o.Deliverable, o.Rejected))
	case o.Rejected != nil:
		return conditions.False(c5c3v1alpha1.ReasonWaitingForKeystoneUser,
			fmt.Sprintf("Keystone does not accept password generation %d yet: %v", o.Deliverable, o.Rejected))
	}
	return conditions.Next()
}

// storeReady: the plane's secret store is Ready.
func storeReady(o Observation) (conditions.Verdict, bool) {
	if !o.StoreNotReady {
		return conditions.Next()
	}
	msg := o.StoreMessage
	if o.StoreHeld {
		msg = fmt.Sprintf("password generation %d stays; no new generation is created or handed to K-ORC until the secret store is Ready: %s",
			o.Deliverable, msg)
	}
	return conditions.False(c5c3v1alpha1.ReasonSecretStoreNotReady, msg)
}

// budgetHeld: the namespace's rotation budget withholds a rotation; the
// delivered generation stays valid (docs/reference/controlplane.md, "Rotation budget").
func budgetHeld(o Observation) (conditions.Verdict, bool) {
	if o.BudgetHeld == "" {
		return conditions.Next()
	}
	return conditions.False(c5c3v1alpha1.ReasonRotationBudgetExhausted, fmt.Sprintf(
		"password generation %d stays delivered and valid; %s", o.Deliverable, o.BudgetHeld))
}

// DeliveryCondition derives DeliveryReady, first match wins
// (docs/reference/keystoneuser.md, "Conditions").
func DeliveryCondition(o Observation, gen int64) metav1.Condition {
	c := metav1.Condition{Type: c5c3v1alpha1.ConditionDeliveryReady, Status: metav1.ConditionFalse, ObservedGeneration: gen}
	set := func(reason, msg string) metav1.Condition { c.Reason, c.Message = reason, msg; return c }
	switch {
	case !o.Gate.Passed():
		return set(o.Gate.Reason, o.Gate.Message)
	case !o.NotPublished.Passed():
		return set(o.NotPublished.Reason, o.NotPublished.Message)
	case o.DeliveryError != nil:
		return set(c5c3v1alpha1.ReasonDeliveryError, o.DeliveryError.Error())
	case !o.passwordReady() || o.Admin || o.Error != nil || !o.Project.Passed():
		desired := max(o.Desired, 1)
		return set(c5c3v1alpha1.ReasonWaitingForPassword, fmt.Sprintf(
			"K-ORC has not applied password generation %d yet, or Keystone does not accept it: see UserReady", desired))
	case o.StoreNotReady:
		return set(c5c3v1alpha1.ReasonBackupNotSynced, "the backup cannot be pushed: "+o.StoreMessage)
	case !o.Pushed:
		return set(c5c3v1alpha1.ReasonBackupNotSynced, fmt.Sprintf(
			"the OpenBao backup of password generation %d is not pushed yet: %s", o.Deliverable, o.PushMessage))
	case o.Refused != nil:
		return set(c5c3v1alpha1.ReasonDeliveryRefused, o.Refused.Error()+
			": a Secret of this name exists that this order does not own; it is never taken over: delete or rename it")
	case !o.Delivered:
		return set(c5c3v1alpha1.ReasonDeliveryError, "the Secret was not written")
	}
	c.Status = metav1.ConditionTrue
	return set(c5c3v1alpha1.ReasonDelivered, fmt.Sprintf(
		"the delivered Secret carries password generation %d", o.Deliverable))
}

// HeldCondition is UserReady/ReferencedByApplicationCredentials while held
// names the credential orders holding the deletion.
func HeldCondition(held orders.Held, name string, gen int64) metav1.Condition {
	return metav1.Condition{Type: c5c3v1alpha1.ConditionUserReady, Status: metav1.ConditionFalse, ObservedGeneration: gen,
		Reason: c5c3v1alpha1.ReasonReferencedByApplicationCredentials, Message: held.Message(orders.KindKeystoneUser, name)}
}

// Conditions are UserReady, DeliveryReady and Ready, their aggregate.
func Conditions(user, delivery metav1.Condition, gen int64) []metav1.Condition {
	return []metav1.Condition{user, delivery, controlplane.ReadyCondition([]metav1.Condition{user, delivery}, gen)}
}
