package applicationcredential

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/korc"
)

// References is what a pass read about the orders a credential order
// references (docs/reference/keystoneapplicationcredential.md, "Consent"). A read error goes to
// Observation.CredentialError, never a nil reference.
type References struct {
	Namespace string
	Spec      c5c3v1alpha1.KeystoneApplicationCredentialSpec
	// User is nil when none exists.
	User *c5c3v1alpha1.KeystoneUser
	// PasswordReady: the user's current password Secret is available.
	PasswordReady bool
	// UserID is the Keystone id from the user's K-ORC User, never the order's
	// status (docs/hub.md, "Trust"); "" while none.
	UserID string
	// Project is nil when none exists.
	Project *c5c3v1alpha1.KeystoneProject
	// ProjectID is the Keystone id from the project's K-ORC Project; "" while none.
	ProjectID string
	// RoleAssigned: a KeystoneRoleAssignment of that user and project reports
	// status.roleID (a frozen assignment keeps its role).
	RoleAssigned bool
	// CABundleMissing: the plane's Keystone CA bundle is not available.
	CABundleMissing bool
}

// refusalOrder is the precedence of reference refusals
// (docs/reference/keystoneapplicationcredential.md, "Conditions").
var refusalOrder = []string{
	c5c3v1alpha1.ReasonUserNotFound,
	c5c3v1alpha1.ReasonProjectNotFound,
	c5c3v1alpha1.ReasonControlPlaneMismatch,
	c5c3v1alpha1.ReasonWaitingForUser,
	c5c3v1alpha1.ReasonWaitingForProject,
}

// RefusalOf is the first refusing reference gate, in the order of
// docs/reference/keystoneapplicationcredential.md, "Conditions"; Passed when
// nothing refuses.
func RefusalOf(r References) conditions.Gate {
	pns, pn := orders.PlaneKey(r.Spec.ControlPlaneRef, r.Namespace)
	ug := orders.UserGate(r.Namespace, r.Spec.UserRef, r.User, pns, pn)
	if ug.Passed() && !r.PasswordReady {
		ug = conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForUser, Message: fmt.Sprintf(
			"the password of KeystoneUser %s's generation %d is not available yet", r.User.Name, r.User.Status.PasswordGeneration)}
	}
	if ug.Passed() && r.UserID == "" {
		ug = conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForUser, Message: fmt.Sprintf(
			"KeystoneUser %s has no Keystone user in its ControlPlane yet (its K-ORC User reports no id)", r.User.Name)}
	}
	pg := orders.ProjectGate(r.Namespace, r.Spec.ProjectRef, r.Project, pns, pn)
	if pg.Passed() && r.ProjectID == "" {
		pg = conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForProject, Message: fmt.Sprintf(
			"KeystoneProject %s has no Keystone project in its ControlPlane yet (its K-ORC Project reports no id)", r.Project.Name)}
	}
	for _, reason := range refusalOrder {
		for _, g := range []conditions.Gate{ug, pg} {
			if g.Reason == reason {
				return g
			}
		}
	}
	if !r.RoleAssigned {
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonNoRoleOnProject, Message: fmt.Sprintf(
			"no KeystoneRoleAssignment in namespace %s has assigned KeystoneUser %s a role on KeystoneProject %s: create one (its role must be in the namespace's allowedRoles)",
			r.Namespace, r.Spec.UserRef.Name, r.Spec.ProjectRef.Name)}
	}
	if r.CABundleMissing {
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForCABundle, Message: "the Keystone CA bundle the ControlPlane references " +
			"(spec.services.keystone.external.caBundleSecretRef) is not available: create that Secret in the plane's namespace"}
	}
	return conditions.Gate{}
}

// Observation is what one pass observed, after it acted, for the conditions.
type Observation struct {
	// Gate is the shared gate, written onto both sub-conditions.
	Gate conditions.Gate
	// Refusal is RefusalOf the references; CredentialReady only.
	Refusal             conditions.Gate
	TransportRetryError error
	// CredentialError is a Kubernetes-level failure on the credential's objects.
	CredentialError error
	Current         int64
	Credentials     []Credential
	Rejected        bool
	ExpiredNow      bool
	// Classified is K-ORC's classified failure on the first credential against an
	// External plane; Passed when unclassified.
	Classified conditions.Gate
	// DeliveryError is a Kubernetes-level failure on a delivery object.
	DeliveryError error
	// ForeignSecret: a same-named Secret the order does not own exists.
	ForeignSecret bool
	// KeystoneNotPublished: a target cluster has no public Keystone endpoint.
	KeystoneNotPublished bool
	// BackupSynced: ESO pushed the current document to OpenBao.
	BackupSynced bool
	Delivered    bool
	SecretName   string
	// LostSecret names a lost secret-v<Current> (namespace/name), else "".
	LostSecret string
	// Previous is status.previousCredentialGeneration after the pass.
	Previous int64
	// PreviousWaiting names the consumers the superseded credential waits for
	// (consumers.ReleaseSuperseded); PreviousDeleteAt is its upper bound.
	PreviousWaiting  []string
	PreviousDeleteAt *time.Time
	// BudgetHeld is orders.BudgetHold.Message of a rotation the budget
	// withheld, else "".
	BudgetHeld string
}

// credentialReady is the CredentialReady chain, first match wins
// (docs/reference/keystoneapplicationcredential.md, "Conditions").
var credentialReady = conditions.Chain[Observation]{
	conditions.GateClosed(func(o Observation) conditions.Gate { return o.Gate }),
	func(o Observation) (conditions.Verdict, bool) {
		if o.TransportRetryError != nil {
			return conditions.False(c5c3v1alpha1.ReasonTransportErrorRetryFailed,
				"clearing a latched transport error from a credential failed: "+o.TransportRetryError.Error())
		}
		return conditions.Next()
	},
	conditions.Failed(c5c3v1alpha1.ReasonCredentialError, func(o Observation) error { return o.CredentialError }),
	conditions.GateClosed(func(o Observation) conditions.Gate { return o.Refusal }),
	credentialFailed,
	firstCredential,
	deliveredReplaced,
	budgetHeld,
	credentialMinted,
}

func CredentialCondition(o Observation, gen int64) metav1.Condition {
	return credentialReady.Condition(c5c3v1alpha1.ConditionCredentialReady, o, gen)
}

// credentialFailed: K-ORC reports a terminal error on the delivered or next
// generation.
func credentialFailed(o Observation) (conditions.Verdict, bool) {
	for _, cr := range o.Credentials {
		if cr.Generation == o.Current && o.Current > 0 && cr.State.Phase == korc.PhaseFailed {
			return conditions.False(c5c3v1alpha1.ReasonCredentialFailed, fmt.Sprintf(
				"K-ORC reports a terminal error on delivered generation %d: %s: %s; raise spec.credentialGeneration above %d to replace it",
				cr.Generation, cr.State.Reason, cr.State.Message, cr.Generation))
		}
	}
	succ, hasSucc := Successor(o.Credentials, o.Current)
	if !hasSucc || succ.State.Phase != korc.PhaseFailed {
		return conditions.Next()
	}
	msg := fmt.Sprintf("K-ORC reports a terminal error on generation %d: %s: %s; ", succ.Generation, succ.State.Reason, succ.State.Message)
	if o.Current > 0 {
		msg += fmt.Sprintf("generation %d stays delivered; ", o.Current)
	}
	return conditions.False(c5c3v1alpha1.ReasonCredentialFailed, msg+fmt.Sprintf("raise spec.credentialGeneration above %d to replace it", succ.Generation))
}

func firstCredential(o Observation) (conditions.Verdict, bool) {
	switch {
	case o.Current != 0:
		return conditions.Next()
	case !o.Classified.Passed():
		return conditions.False(o.Classified.Reason, o.Classified.Message)
	case o.BudgetHeld != "":
		return conditions.False(c5c3v1alpha1.ReasonRotationBudgetExhausted, "no credential exists yet; "+o.BudgetHeld)
	}
	msg := "no credential has been created yet"
	if succ, hasSucc := Successor(o.Credentials, o.Current); hasSucc {
		msg = fmt.Sprintf("K-ORC has not made generation %d Available yet", succ.Generation)
		if succ.State.Message != "" {
			msg += ": " + succ.State.Message
		}
	}
	return conditions.False(c5c3v1alpha1.ReasonWaitingForCredential, msg)
}

// deliveredReplaced: the delivered generation is gone, rejected or expired.
func deliveredReplaced(o Observation) (conditions.Verdict, bool) {
	var why string
	switch {
	case !listed(o.Credentials, o.Current):
		why = "delivered generation %d is gone from Keystone; a new generation replaces it"
	case o.Rejected:
		why = "Keystone rejects delivered generation %d (deleted out of band?); a new generation replaces it"
	case o.ExpiredNow:
		why = "delivered generation %d has expired in Keystone; a new generation replaces it"
	default:
		return conditions.Next()
	}
	return conditions.False(c5c3v1alpha1.ReasonWaitingForCredential, fmt.Sprintf(why, o.Current))
}

// budgetHeld: the namespace's rotation budget withholds a rotation; the
// delivered generation stays valid, so the condition stays True
// (docs/reference/controlplane.md, "Rotation budget").
func budgetHeld(o Observation) (conditions.Verdict, bool) {
	if o.BudgetHeld == "" {
		return conditions.Next()
	}
	return conditions.True(c5c3v1alpha1.ReasonRotationBudgetExhausted, fmt.Sprintf(
		"generation %d exists in Keystone and stays delivered; %s", o.Current, o.BudgetHeld))
}

func credentialMinted(o Observation) (conditions.Verdict, bool) {
	state := "is delivered"
	if !o.Delivered {
		state = "is not delivered yet"
	}
	if succ, hasSucc := Successor(o.Credentials, o.Current); hasSucc {
		return conditions.True(c5c3v1alpha1.ReasonCredentialMinted, fmt.Sprintf(
			"generation %d exists in Keystone and %s; its successor, generation %d, is being created", o.Current, state, succ.Generation))
	}
	return conditions.True(c5c3v1alpha1.ReasonCredentialMinted, fmt.Sprintf("generation %d exists in Keystone and %s", o.Current, state))
}

// DeliveryCondition derives DeliveryReady, first match wins
// (docs/reference/keystoneapplicationcredential.md, "Conditions"). Reference
// refusals are CredentialReady's only: a refused order keeps its delivered
// Secret.
func DeliveryCondition(o Observation, gen int64) metav1.Condition {
	c := metav1.Condition{Type: c5c3v1alpha1.ConditionDeliveryReady, Status: metav1.ConditionFalse, ObservedGeneration: gen}
	set := func(reason, msg string) metav1.Condition { c.Reason, c.Message = reason, msg; return c }
	switch {
	case !o.Gate.Passed():
		return set(o.Gate.Reason, o.Gate.Message)
	case o.DeliveryError != nil:
		return set(c5c3v1alpha1.ReasonDeliveryError, o.DeliveryError.Error())
	case o.ForeignSecret:
		return set(c5c3v1alpha1.ReasonDeliveryRefused, fmt.Sprintf(
			"Secret %s exists and is not owned by this order; it is never taken over: rename the order or remove the Secret", o.SecretName))
	case o.KeystoneNotPublished:
		return set(c5c3v1alpha1.ReasonKeystoneNotPublished,
			"the order's cluster cannot reach the in-cluster Keystone Service and the ControlPlane publishes no endpoint: set spec.services.keystone.publicEndpoint or gateway on the ControlPlane")
	case o.Current == 0:
		return set(c5c3v1alpha1.ReasonWaitingForCredential, "no credential exists yet")
	case o.Delivered:
		c.Status = metav1.ConditionTrue
		msg := fmt.Sprintf("Secret %s carries generation %d", o.SecretName, o.Current)
		if o.Previous > 0 && len(o.PreviousWaiting) > 0 && o.PreviousDeleteAt != nil {
			msg += fmt.Sprintf("; generation %d stays in Keystone until these consumers are on generation %d, at the latest until %s: %s",
				o.Previous, o.Current, o.PreviousDeleteAt.UTC().Format(time.RFC3339), strings.Join(o.PreviousWaiting, ", "))
		}
		return set(c5c3v1alpha1.ReasonDelivered, msg)
	case o.LostSecret != "":
		msg := fmt.Sprintf("Secret %s holding the secret of generation %d is gone from the cluster; Keystone cannot hand it back, "+
			"so a new generation replaces it", o.LostSecret, o.Current)
		if o.Previous > 0 {
			msg += fmt.Sprintf(" once the grace period of generation %d is over", o.Previous)
		}
		return set(c5c3v1alpha1.ReasonWaitingForCredential, msg)
	case !o.BackupSynced:
		return set(c5c3v1alpha1.ReasonBackupNotSynced, fmt.Sprintf(
			"ESO has not pushed the document of generation %d to OpenBao yet; the Secret is written once it has", o.Current))
	}
	return set(c5c3v1alpha1.ReasonWaitingForCredential, fmt.Sprintf("Secret %s does not carry generation %d yet", o.SecretName, o.Current))
}

// ReadyCondition is True/AllReady when every sub-condition is True, else
// False/NotAllReady naming each that is not
// (docs/reference/keystoneapplicationcredential.md, "Conditions").
func ReadyCondition(subs []metav1.Condition, gen int64) metav1.Condition {
	var notReady []string
	for _, s := range subs {
		if s.Status != metav1.ConditionTrue {
			notReady = append(notReady, s.Type+"="+string(s.Status)+" ("+s.Reason+")")
		}
	}
	c := metav1.Condition{Type: c5c3v1alpha1.ConditionReady, ObservedGeneration: gen}
	if len(notReady) == 0 {
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, c5c3v1alpha1.ReasonAllReady, "CredentialReady and DeliveryReady are True"
		return c
	}
	c.Status, c.Reason, c.Message = metav1.ConditionFalse, c5c3v1alpha1.ReasonNotAllReady, strings.Join(notReady, ", ")
	return c
}

// Conditions are CredentialReady, DeliveryReady and Ready of o at generation gen.
func Conditions(o Observation, gen int64) []metav1.Condition {
	cr, dr := CredentialCondition(o, gen), DeliveryCondition(o, gen)
	return []metav1.Condition{cr, dr, ReadyCondition([]metav1.Condition{cr, dr}, gen)}
}
