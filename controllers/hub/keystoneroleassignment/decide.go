package keystoneroleassignment

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/korc"
)

// Requeue intervals. The grant lives in Keystone and is not watched: a
// Ready order re-checks it (and repairs an out-of-band revoke) after
// ReadyResync, one that is not Ready after NotReadyRequeue. An order on a
// target cluster waits at most orders.RequeueTarget.
const (
	NotReadyRequeue = 15 * time.Second
	ReadyResync     = 10 * time.Minute
)

// Observation is what one pass learned about the order.
type Observation struct {
	// Gate is the shared gate (orders.GateOf).
	Gate conditions.Gate
	// Allowed is whether spec.role is in the allowedRoles of the
	// namespace's assignment (orders.RoleAllowed); read only when Gate
	// passed.
	Allowed bool
	// Role is spec.role; Plane names the plane ("<ns>/<name>") and Namespace
	// the order's namespace, for messages.
	Role, Plane, Namespace string
	// Refs is the user gate, then the project gate (orders.UserGate,
	// orders.ProjectGate).
	Refs conditions.Gate
	// External is true against an External-mode plane: a wait is replaced
	// by a classified cause where the message allows.
	External bool
	// Error is a Kubernetes-level failure (AssignmentError).
	Error error
	// RoleImport is the Role import's verdict, read like a probe: Found
	// (its ID is the role id), Absent (no such role: RoleNotFound), Error
	// (terminal: AssignmentFailed) or Pending.
	RoleImport korc.ProbeResult
	// GrantError is Keystone's answer to the last grant read or write.
	GrantError error
	// Granted is true once Keystone lists the assignment.
	Granted bool
}

// AssignmentCondition derives AssignmentReady
// (docs/reference/keystoneroleassignment.md "Conditions"), first match
// wins: the shared gate; the role not allowed (RoleNotAllowed); the user and
// project gates; a Kubernetes error (AssignmentError); the Role import
// (RoleNotFound, AssignmentFailed, WaitingForAssignment or a classified
// External-mode cause); a grant error (GrantReason); no grant yet
// (WaitingForAssignment); else RoleAssigned.
func AssignmentCondition(o Observation, gen int64) metav1.Condition {
	c := metav1.Condition{Type: c5c3v1alpha1.ConditionAssignmentReady, Status: metav1.ConditionFalse, ObservedGeneration: gen}
	set := func(reason, msg string) metav1.Condition { c.Reason, c.Message = reason, msg; return c }
	if !o.Gate.Passed() {
		return set(o.Gate.Reason, o.Gate.Message)
	}
	if !o.Allowed {
		return set(c5c3v1alpha1.ReasonRoleNotAllowed, fmt.Sprintf(
			"ControlPlane %s does not list role %q in the allowedRoles of namespace %s; nothing is assigned, an assignment made before stays: "+
				"ask the plane's operator to allow the role", o.Plane, o.Role, o.Namespace))
	}
	if !o.Refs.Passed() {
		return set(o.Refs.Reason, o.Refs.Message)
	}
	if o.Error != nil {
		return set(c5c3v1alpha1.ReasonAssignmentError, o.Error.Error())
	}
	switch o.RoleImport.Outcome {
	case korc.ProbeAbsent:
		return set(c5c3v1alpha1.ReasonRoleNotFound, fmt.Sprintf(
			"Keystone has no role %q (the import matches the name exactly: check its letter case against openstack role list); roles are global and never created by an order: correct spec.role by re-creating the order, or ask the plane's operator to create the role", o.Role))
	case korc.ProbeError:
		return set(c5c3v1alpha1.ReasonAssignmentFailed, fmt.Sprintf("the import of role %s: %s: %s", o.Role, o.RoleImport.Reason, o.RoleImport.Message))
	case korc.ProbePending:
		if o.External {
			if reason, ok := korc.ClassifyExternal(korc.State{Phase: korc.PhaseProgressing, Message: o.RoleImport.Message}); ok {
				return set(reason, "the import of role "+o.Role+": "+o.RoleImport.Message)
			}
		}
		msg := "the import of role " + o.Role + " is not Available yet"
		if o.RoleImport.Message != "" {
			msg += ": " + o.RoleImport.Message
		}
		return set(c5c3v1alpha1.ReasonWaitingForAssignment, msg)
	}
	if o.GrantError != nil {
		return set(GrantReason(o.GrantError, o.External), "assigning the role in Keystone: "+o.GrantError.Error())
	}
	if !o.Granted {
		return set(c5c3v1alpha1.ReasonWaitingForAssignment, "the role is not assigned in Keystone yet")
	}
	c.Status = metav1.ConditionTrue
	return set(c5c3v1alpha1.ReasonRoleAssigned, fmt.Sprintf("role %s (id %s) is assigned in Keystone", o.Role, o.RoleImport.ID))
}

// GrantReason classifies a Granter error: against an External plane a
// classified cause (korc.ClassifyExternal) first; a Keystone refusal that a
// retry does not change (400, 403, 404, 409) is AssignmentFailed; anything
// else (a transport error, 401, 5xx) is WaitingForAssignment, retried on
// the next pass.
func GrantReason(err error, external bool) string {
	if external {
		if reason, ok := korc.ClassifyExternal(korc.State{Phase: korc.PhaseProgressing, Message: err.Error()}); ok {
			return reason
		}
	}
	for _, code := range []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusConflict} {
		if gophercloud.ResponseCodeIs(err, code) {
			return c5c3v1alpha1.ReasonAssignmentFailed
		}
	}
	return c5c3v1alpha1.ReasonWaitingForAssignment
}

// Conditions are AssignmentReady and the aggregate Ready.
func Conditions(assignment metav1.Condition, gen int64) []metav1.Condition {
	return []metav1.Condition{assignment, controlplane.ReadyCondition([]metav1.Condition{assignment}, gen)}
}

// HeldCondition is AssignmentReady while credential orders hold the
// deletion of the order named name
// (docs/reference/keystoneapplicationcredential.md, "Deletion Semantics").
func HeldCondition(h orders.Held, name string, gen int64) metav1.Condition {
	return metav1.Condition{Type: c5c3v1alpha1.ConditionAssignmentReady, Status: metav1.ConditionFalse, ObservedGeneration: gen,
		Reason: c5c3v1alpha1.ReasonReferencedByApplicationCredentials, Message: h.Message(orders.KindKeystoneRoleAssignment, name)}
}

// StatusOf is the status fields after a pass
// (docs/reference/keystoneroleassignment.md "Status"): userID and projectID
// are taken from the referenced orders once their gates pass; roleID is set
// once Keystone lists the grant, cleared when Keystone has no such role
// (RoleNotFound: no assignment of it can exist) or the referenced user or
// project order is gone (UserNotFound, ProjectNotFound: its teardown
// deleted the Keystone object and the assignment with it), and otherwise
// kept: a
// frozen order, a role removed from allowedRoles, a waiting reference or a
// failing grant read all leave the assignment in Keystone as it was.
func StatusOf(prev c5c3v1alpha1.KeystoneRoleAssignmentStatus, o Observation, userID, projectID string) c5c3v1alpha1.KeystoneRoleAssignmentStatus {
	s := prev
	if !o.Gate.Passed() || !o.Allowed {
		return s
	}
	switch o.Refs.Reason {
	case "":
	case c5c3v1alpha1.ReasonUserNotFound, c5c3v1alpha1.ReasonProjectNotFound:
		// The referenced order is gone, and its teardown deleted the user
		// or project in Keystone, taking the assignment with it.
		s.RoleID = ""
		return s
	default:
		return s
	}
	s.UserID, s.ProjectID = userID, projectID
	switch {
	case o.Granted && o.RoleImport.Outcome == korc.ProbeFound:
		s.RoleID = o.RoleImport.ID
	case o.Error == nil && o.RoleImport.Outcome == korc.ProbeAbsent:
		s.RoleID = ""
	}
	return s
}

// RequeueAfter is the delay before the next unprompted pass: ReadyResync
// for a Ready order; for one not Ready for notReadyFor (orders.NotReadyFor)
// NotReadyRequeue, backing off to orders.NotReadyCap
// (orders.NotReadyBackoff); at most orders.RequeueTarget for an order on a
// target cluster (orders.RequeueAfter).
func RequeueAfter(ready, onTarget bool, notReadyFor time.Duration) time.Duration {
	return orders.RequeueAfter(ready, onTarget, ReadyResync, orders.NotReadyBackoff(NotReadyRequeue, notReadyFor))
}

// SharedBy names the other live KeystoneRoleAssignments among others (the
// orders of me's namespace on me's cluster) that grant the same thing as
// me: the same user and project orders and the same role (compared with
// strings.EqualFold, as Keystone's collation does, see orders.RoleAllowed)
// in the same ControlPlane. Orders being deleted do not count. While any
// does, me's teardown leaves the Keystone assignment in place. Sorted.
func SharedBy(me *c5c3v1alpha1.KeystoneRoleAssignment, others []c5c3v1alpha1.KeystoneRoleAssignment) []string {
	myNS, myName := orders.PlaneKey(me.Spec.ControlPlaneRef, me.Namespace)
	var out []string
	for i := range others {
		o := &others[i]
		if o.Name == me.Name || o.Namespace != me.Namespace || !o.DeletionTimestamp.IsZero() {
			continue
		}
		if ns, n := orders.PlaneKey(o.Spec.ControlPlaneRef, o.Namespace); ns != myNS || n != myName {
			continue
		}
		if o.Spec.UserRef.Name == me.Spec.UserRef.Name && o.Spec.ProjectRef.Name == me.Spec.ProjectRef.Name &&
			strings.EqualFold(string(o.Spec.Role), string(me.Spec.Role)) {
			out = append(out, o.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Revocation names the Keystone assignment a teardown revokes: the ids of
// the user, project and role.
type Revocation struct{ UserID, ProjectID, RoleID string }

// Annotations of an order's Role import recording the user and project ids
// it grants the role to: written by the hub with every grant pass, read by
// the teardown, which revokes nothing else (docs/hub.md "Trust").
const (
	AnnotationGrantUserID    = "c5c3.io/grant-user-id"
	AnnotationGrantProjectID = "c5c3.io/grant-project-id"
)

// grantAnnotations are the Role import's AnnotationGrantUserID and
// AnnotationGrantProjectID.
func grantAnnotations(userID, projectID string) map[string]string {
	return map[string]string{AnnotationGrantUserID: userID, AnnotationGrantProjectID: projectID}
}

// Recorded is the user and project a teardown may revoke the role from:
// the ids the Role import's annotations record (importAnnotations; nil
// without an import), else, for an import written before the annotations
// existed, the ids of the orders' K-ORC User and Project now (childUserID,
// childProjectID: orders.UserKeystoneID, orders.ProjectKeystoneID). Never
// an order's status (docs/hub.md "Trust").
func Recorded(importAnnotations map[string]string, childUserID, childProjectID string) Revocation {
	if recordsGrant(importAnnotations) {
		return Revocation{UserID: importAnnotations[AnnotationGrantUserID], ProjectID: importAnnotations[AnnotationGrantProjectID]}
	}
	return Revocation{UserID: childUserID, ProjectID: childProjectID}
}

// recordsGrant reports whether a Role import's annotations record both the
// user and the project of its grant (an import written before the
// annotations existed records neither).
func recordsGrant(importAnnotations map[string]string) bool {
	return importAnnotations[AnnotationGrantUserID] != "" && importAnnotations[AnnotationGrantProjectID] != ""
}

// PlanRevoke decides whether the teardown revokes the assignment
// (docs/reference/keystoneroleassignment.md "Deletion Semantics"): only
// with the plane present (without it nothing can reach Keystone), only when
// the user and project (rec, from Recorded) and the role are known (the
// resolved Role import's id importID, else statusRoleID: the role of a
// grant whose import does not resolve now, which can only name a role of
// rec's user on rec's project), and only when no other live order grants
// the same (SharedBy empty). ok is false when nothing is revoked.
func PlanRevoke(rec Revocation, importID, statusRoleID string, shared []string, planeExists bool) (Revocation, bool) {
	rec.RoleID = importID
	if rec.RoleID == "" {
		rec.RoleID = statusRoleID
	}
	if !planeExists || len(shared) > 0 || rec.UserID == "" || rec.ProjectID == "" || rec.RoleID == "" {
		return Revocation{}, false
	}
	return rec, true
}
