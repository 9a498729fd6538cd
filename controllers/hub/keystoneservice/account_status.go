package keystoneservice

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/korc"
)

// AdminIdentity says whether the account resolves to the plane's admin identity.
type AdminIdentity int

const (
	// NotAdmin: the account names another user.
	NotAdmin AdminIdentity = iota
	// AdminNotOwned: the registration resolves to it and owns no user yet.
	AdminNotOwned
	// AdminOwned: the registration already owns that user.
	AdminOwned
)

// Child is a named K-ORC child's state for condition messages.
type Child = conditions.Child

// AccountObservation is what one pass learned about the account block.
type AccountObservation struct {
	Gate  Gate
	Admin AdminIdentity
	// Plane names the plane for messages.
	Plane string
	// External is true against an External-mode plane.
	External bool
	// Error is a Kubernetes-level failure (ServiceAccountError).
	Error error

	// ProjectCreate is spec.account.project.create; ProjectExists is true once
	// the managed Project exists; ProjectProbe is the probe's verdict before.
	ProjectCreate bool
	ProjectExists bool
	ProjectProbe  korc.ProbeResult
	// Adopt is spec.account.adopt; UserExists and UserProbe as for the project.
	Adopt      bool
	UserExists bool
	UserProbe  korc.ProbeResult
	// UserOwnedBy names another owner managing the probed user, else "".
	UserOwnedBy string
	// ClaimHolder names another holder of the user name claim
	// (orders.DescribeHolder), else "".
	ClaimHolder string
	// ProjectClaimHolder is the same for the project name (project.create only).
	ProjectClaimHolder string

	// Children are the domain import (if not the admin domain), the project,
	// the user and the role imports, in that order.
	Children []Child
	// MissingGrants names the declared roles not yet assigned in Keystone.
	MissingGrants []string
	// GrantError is Keystone's answer to the last grant read or write.
	GrantError error

	// Desired and Applied are the password generations the User names and K-ORC
	// applied; Deliverable is the one Keystone accepts (0: none).
	Desired, Applied, Deliverable int64
	// PasswordRejected is Keystone's refusal of the applied password.
	PasswordRejected error

	// StoreReady is false while the namespace's SecretStore is not Ready.
	StoreReady   bool
	StoreMessage string
	// Pushed is true when ESO pushed the current document; else PushMessage.
	Pushed      bool
	PushMessage string
	// Refused is a not-owned consumer Secret (*apply.NotOwnedError).
	Refused error
	// Delivered is true when the consumer Secret carries the deliverable
	// generation; else DeliveryMessage says what is missing.
	Delivered       bool
	DeliveryMessage string
}

// accountReady is the AccountReady chain of a declared account block, first
// match wins (docs/reference/keystoneservice.md, "Conditions").
var accountReady = conditions.Chain[AccountObservation]{
	conditions.GateClosed(func(o AccountObservation) conditions.Gate { return o.Gate }),
	adminAccount,
	conditions.Failed(c5c3v1alpha1.ReasonServiceAccountError, func(o AccountObservation) error { return o.Error }),
	userClaimed,
	projectClaimed,
	accountProbes,
	accountChildren,
	accountPassword,
	accountDelivery,
	func(o AccountObservation) (conditions.Verdict, bool) {
		return conditions.True(c5c3v1alpha1.ReasonAccountProvisioned, fmt.Sprintf(
			"the account exists with its roles bound; password generation %d is delivered", o.Deliverable))
	},
}

// AccountCondition derives AccountReady from o (accountReady).
func AccountCondition(o AccountObservation, gen int64) metav1.Condition {
	return accountReady.Condition(c5c3v1alpha1.ConditionAccountReady, o, gen)
}

// waitAccount is a WaitingForServiceAccounts verdict.
func waitAccount(msg string) (conditions.Verdict, bool) {
	return conditions.False(c5c3v1alpha1.ReasonWaitingForServiceAccounts, msg)
}

// adminAccount: the account resolves to the plane's admin identity.
func adminAccount(o AccountObservation) (conditions.Verdict, bool) {
	return conditions.Collision(o.Admin != NotAdmin, o.Admin == AdminOwned, c5c3v1alpha1.ReasonServiceAccountCollision,
		fmt.Sprintf("ControlPlane %s's admin identity was edited onto the user this registration owns: "+
			"change spec.korc.adminCredential on the ControlPlane back; do NOT delete this KeystoneService, "+
			"its teardown would delete that user from Keystone", o.Plane),
		fmt.Sprintf("the account resolves to ControlPlane %s's admin identity, which is never registrable; nothing was touched: "+
			"delete this KeystoneService and re-create it with a userName of its own", o.Plane))
}

// userClaimed: another registration or order holds the user name claim.
func userClaimed(o AccountObservation) (conditions.Verdict, bool) {
	return conditions.Collision(o.ClaimHolder != "", o.UserExists, c5c3v1alpha1.ReasonServiceAccountCollision,
		fmt.Sprintf("another registration or order, %s, holds this user name in the domain, and this registration's K-ORC User, "+
			"created before name claims existed, shares that Keystone user: do NOT delete this KeystoneService, "+
			"its teardown would delete the user the holder delivers", o.ClaimHolder),
		fmt.Sprintf("another registration or order, %s, holds this user name in the domain; two never share a Keystone user and "+
			"nothing was touched: delete this KeystoneService and re-create it with account.userName set to a free name "+
			"(the field is immutable), or delete the other one first", o.ClaimHolder))
}

// projectClaimed: another registration or order holds the project name claim.
func projectClaimed(o AccountObservation) (conditions.Verdict, bool) {
	return conditions.Collision(o.ProjectClaimHolder != "", o.ProjectExists, c5c3v1alpha1.ReasonServiceAccountCollision,
		fmt.Sprintf("another registration or order, %s, holds this project name in the domain, and this registration's K-ORC Project, "+
			"created before name claims existed, shares that Keystone project: do NOT delete this KeystoneService, "+
			"its teardown would delete the holder's project; delete the other one first if it never owned the project", o.ProjectClaimHolder),
		fmt.Sprintf("another registration or order, %s, holds this project name in the domain; two never both create one Keystone "+
			"project and nothing was touched: delete this KeystoneService and re-create it with account.project.create: false "+
			"to reference the holder's project, or with account.project.name set to a free name (both fields are immutable), "+
			"or delete the other one first", o.ProjectClaimHolder))
}

// accountProbes: the project probe, then the user probe, before their children exist.
func accountProbes(o AccountObservation) (conditions.Verdict, bool) {
	if o.ProjectCreate && !o.ProjectExists {
		if v, done := probeVerdict("project", o.ProjectProbe, false,
			"a project of this name already exists in the domain; nothing was touched: delete this KeystoneService and "+
				"re-create it with account.project.create: false to reference it (the field is immutable)"); done {
			return v, true
		}
	}
	if o.UserExists {
		return conditions.Next()
	}
	if o.UserOwnedBy != "" {
		return conditions.False(c5c3v1alpha1.ReasonServiceAccountCollision, fmt.Sprintf(
			"the user of this name (id %s) is managed by %s; adopt never takes over a user another registration owns: "+
				"delete this KeystoneService and re-create it with a userName of its own", o.UserProbe.ID, o.UserOwnedBy))
	}
	return probeVerdict("user", o.UserProbe, o.Adopt,
		"a user of this name already exists in the domain; nothing was touched: set account.adopt: true to take it over, including its password")
}

// accountChildren: every child Available, then the grants.
func accountChildren(o AccountObservation) (conditions.Verdict, bool) {
	waiting, v, decided := conditions.Available(o.Children, o.External, c5c3v1alpha1.ReasonServiceAccountsFailed)
	switch {
	case decided:
		return v, true
	case len(waiting) > 0:
		return waitAccount(strings.Join(waiting, "; "))
	case o.GrantError != nil:
		return waitAccount("assigning the roles: " + o.GrantError.Error())
	case len(o.MissingGrants) > 0:
		return waitAccount("role(s) not assigned in Keystone yet: " + strings.Join(o.MissingGrants, ", "))
	}
	return conditions.Next()
}

// accountPassword: K-ORC applied the desired generation and Keystone accepts it.
func accountPassword(o AccountObservation) (conditions.Verdict, bool) {
	switch {
	case o.Deliverable == 0 || o.Applied != o.Desired:
		return waitAccount(fmt.Sprintf("K-ORC has not applied password generation %d to the user yet", o.Desired))
	case o.PasswordRejected != nil:
		return waitAccount(fmt.Sprintf("Keystone does not accept password generation %d yet: %v", o.Deliverable, o.PasswordRejected))
	}
	return conditions.Next()
}

// accountDelivery: the store, the backup and the consumer Secret.
func accountDelivery(o AccountObservation) (conditions.Verdict, bool) {
	switch {
	case !o.StoreReady:
		return conditions.False(c5c3v1alpha1.ReasonSecretStoreNotReady, o.StoreMessage)
	case !o.Pushed:
		return waitAccount(fmt.Sprintf("the OpenBao backup of password generation %d is not pushed yet: %s", o.Deliverable, o.PushMessage))
	case o.Refused != nil:
		return conditions.False(c5c3v1alpha1.ReasonDeliveryRefused, o.Refused.Error()+
			": a Secret of the consumer Secret's name exists that this registration does not own; it is never taken over: "+
			"delete or rename it")
	case !o.Delivered:
		return waitAccount(fmt.Sprintf("the consumer Secret does not carry password generation %d yet: %s", o.Deliverable, o.DeliveryMessage))
	}
	return conditions.Next()
}

// probeVerdict maps what's ("user" or "project") probe verdict to AccountReady.
func probeVerdict(what string, p korc.ProbeResult, consent bool, collision string) (conditions.Verdict, bool) {
	switch korc.DecideProbe(p, consent) {
	case korc.ProbeCollide:
		return conditions.False(c5c3v1alpha1.ReasonServiceAccountCollision, collision+" (id "+p.ID+")")
	case korc.ProbeFail:
		return conditions.False(c5c3v1alpha1.ReasonServiceAccountsFailed, what+" collision probe: "+p.Reason+": "+p.Message)
	case korc.ProbeWait:
		msg := "the " + what + " collision probe has not resolved yet"
		if p.Message != "" {
			msg += ": " + p.Message
		}
		return conditions.False(c5c3v1alpha1.ReasonProbingForCollision, msg)
	}
	return conditions.Next()
}

// NotDeclaredAccount is AccountReady without an account block.
func NotDeclaredAccount(gen int64) metav1.Condition {
	return metav1.Condition{Type: c5c3v1alpha1.ConditionAccountReady, Status: metav1.ConditionTrue, ObservedGeneration: gen,
		Reason: c5c3v1alpha1.ReasonAccountNotDeclared, Message: "no account block is declared"}
}
