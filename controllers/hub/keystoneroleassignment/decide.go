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
	"github.com/c5c3/orderhub/internal/listcache"
	"github.com/c5c3/orderhub/korc"
)

// Requeue intervals; a Ready order re-checks (and repairs) its unwatched
// Keystone grant every ReadyResync (docs/reference/keystoneroleassignment.md,
// "How roles are granted").
const (
	NotReadyRequeue = 15 * time.Second
	// ReadyResync is 10 minutes less the age a list answering the check may
	// have (listcache.DefaultMaxAge), so a change is seen within 10 minutes.
	ReadyResync = 10*time.Minute - listcache.DefaultMaxAge
)

// Observation is what one pass learned about the order.
type Observation struct {
	// Gate is the shared gate (orders.GateOf).
	Gate conditions.Gate
	// Allowed is whether spec.role is allowed (orders.RoleAllowed); read only
	// when Gate passed.
	Allowed bool
	// Role is spec.role; Plane ("<ns>/<name>") and Namespace are for messages.
	Role, Plane, Namespace string
	// Refs is the user gate, then the project gate.
	Refs conditions.Gate
	// External is true against an External-mode plane.
	External bool
	// Error is a Kubernetes-level failure (AssignmentError).
	Error error
	// RoleImport is the Role import's verdict, read like a probe.
	RoleImport korc.ProbeResult
	// GrantError is Keystone's answer to the last grant read or write.
	GrantError error
	// Granted is true once Keystone lists the assignment.
	Granted bool
}

// AssignmentCondition derives AssignmentReady, first match wins
// (docs/reference/keystoneroleassignment.md, "Conditions").
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

// GrantReason classifies a Granter error: a classified External cause, else
// AssignmentFailed for 400/403/404/409, else WaitingForAssignment
// (docs/reference/keystoneroleassignment.md, "How roles are granted").
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

// StatusOf is the status after a pass (docs/reference/keystoneroleassignment.md,
// "Status"): roleID is set once granted, cleared when the role or the
// referenced user or project is gone, else kept.
func StatusOf(prev c5c3v1alpha1.KeystoneRoleAssignmentStatus, o Observation, userID, projectID string) c5c3v1alpha1.KeystoneRoleAssignmentStatus {
	s := prev
	if !o.Gate.Passed() || !o.Allowed {
		return s
	}
	switch o.Refs.Reason {
	case "":
	case c5c3v1alpha1.ReasonUserNotFound, c5c3v1alpha1.ReasonProjectNotFound:
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

// RequeueAfter is the delay before the next unprompted pass
// (orders.RequeueAfter with orders.NotReadyBackoff).
func RequeueAfter(ready, onTarget bool, notReadyFor time.Duration) time.Duration {
	return orders.RequeueAfter(ready, onTarget, ReadyResync, orders.NotReadyBackoff(NotReadyRequeue, notReadyFor))
}

// SharedBy names, sorted, the other live orders in others that grant what me
// grants (same plane, user, project and role under strings.EqualFold); while
// any does, me's teardown keeps the Keystone assignment.
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

// Annotations of a Role import recording the user and project ids it granted
// to (docs/reference/keystoneroleassignment.md, "Deletion Semantics").
const (
	AnnotationGrantUserID    = "c5c3.io/grant-user-id"
	AnnotationGrantProjectID = "c5c3.io/grant-project-id"
)

// grantAnnotations are the Role import's AnnotationGrantUserID and
// AnnotationGrantProjectID.
func grantAnnotations(userID, projectID string) map[string]string {
	return map[string]string{AnnotationGrantUserID: userID, AnnotationGrantProjectID: projectID}
}

// Recorded is the user and project a teardown may revoke from: the import's
// annotations, else the K-ORC children's ids now; never an order's status
// (docs/reference/keystoneroleassignment.md, "Deletion Semantics").
func Recorded(importAnnotations map[string]string, childUserID, childProjectID string) Revocation {
	if recordsGrant(importAnnotations) {
		return Revocation{UserID: importAnnotations[AnnotationGrantUserID], ProjectID: importAnnotations[AnnotationGrantProjectID]}
	}
	return Revocation{UserID: childUserID, ProjectID: childProjectID}
}

// recordsGrant reports whether the annotations record both ids.
func recordsGrant(importAnnotations map[string]string) bool {
	return importAnnotations[AnnotationGrantUserID] != "" && importAnnotations[AnnotationGrantProjectID] != ""
}

// PlanRevoke decides whether the teardown revokes the assignment: only with
// the plane present, all three ids known (role: importID, else statusRoleID)
// and shared empty; ok is false when nothing is revoked
// (docs/reference/keystoneroleassignment.md, "Deletion Semantics").
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
