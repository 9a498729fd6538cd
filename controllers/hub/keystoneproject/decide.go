package keystoneproject

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/keystone"
	"github.com/c5c3/orderhub/korc"
)

// Requeue intervals; children and the plane are watched, so these bound how
// long Keystone-side drift stays unnoticed (docs/reference/keystoneproject.md,
// "Conditions").
const (
	NotReadyRequeue = 15 * time.Second
	ReadyResync     = 10 * time.Minute
)

// EffectiveProjectName is spec.projectName, or metadata.name when unset.
func EffectiveProjectName(kp *c5c3v1alpha1.KeystoneProject) string {
	return cmp.Or(string(kp.Spec.ProjectName), kp.Name)
}

// EffectiveDomain is the project's domain: spec.domainName, or the plane's
// admin domain (controlplane.AdminOf(cp).Domain) when unset.
func EffectiveDomain(kp *c5c3v1alpha1.KeystoneProject, cp *c5c3v1alpha1.ControlPlane) string {
	return controlplane.DomainOr(string(kp.Spec.DomainName), cp)
}

// IsAdminDomain reports whether domain is the plane's admin domain under
// keystone.SameIdentityName (then the plane's Domain import is referenced).
func IsAdminDomain(domain string, cp *c5c3v1alpha1.ControlPlane) bool {
	return keystone.SameIdentityName(domain, controlplane.AdminOf(cp).Domain)
}

// AdminProject says whether the order resolves to the plane's admin project.
type AdminProject int

const (
	// NotAdminProject: the order names another project.
	NotAdminProject AdminProject = iota
	// AdminProjectNotOwned: the order resolves to the admin project and has
	// no managed Project child: refused, nothing touched.
	AdminProjectNotOwned
	// AdminProjectOwned: the order already owns the project the plane's
	// admin identity was edited onto: refused, the plane has to move back.
	AdminProjectOwned
)

// AdminProjectOf decides the admin-project refusal under
// keystone.SameIdentityName; owns is whether the order has its managed
// Project child (docs/reference/keystoneproject.md, "Consent").
func AdminProjectOf(kp *c5c3v1alpha1.KeystoneProject, cp *c5c3v1alpha1.ControlPlane, owns bool) AdminProject {
	a := controlplane.AdminOf(cp)
	if !keystone.SameIdentityName(EffectiveProjectName(kp), a.Project) || !keystone.SameIdentityName(EffectiveDomain(kp, cp), a.Domain) {
		return NotAdminProject
	}
	if owns {
		return AdminProjectOwned
	}
	return AdminProjectNotOwned
}

// Observation is what one pass learned about the order.
type Observation struct {
	// Gate is the shared gate (orders.GateOf).
	Gate conditions.Gate
	// Plane names the plane for messages ("<ns>/<name>").
	Plane string
	// External is true against an External-mode plane: a wait is replaced
	// by a classified cause where K-ORC's message allows.
	External bool
	// Admin is the admin-project refusal.
	Admin AdminProject
	// ClaimHolder names another order holding the claim on the project's name
	// (orders.Acquire), else "".
	ClaimHolder string
	// Error is a Kubernetes-level failure (ProjectError).
	Error error
	// Domain is the state of the domain import the project depends on (nil:
	// none observed); DomainName names it.
	Domain     *korc.State
	DomainName string
	// ProjectExists is true once the managed Project child exists.
	ProjectExists bool
	// Probe is the collision probe's verdict while ProjectExists is false.
	Probe korc.ProbeResult
	// Project is the managed Project's state (ProjectExists).
	Project korc.State
}

// projectReady is the ProjectReady chain, first match wins
// (docs/reference/keystoneproject.md, "Conditions").
var projectReady = conditions.Chain[Observation]{
	conditions.GateClosed(func(o Observation) conditions.Gate { return o.Gate }),
	adminProject,
	conditions.Failed(c5c3v1alpha1.ReasonProjectError, func(o Observation) error { return o.Error }),
	nameClaimed,
	func(o Observation) (conditions.Verdict, bool) {
		if d := o.Domain; d != nil && d.Phase == korc.PhaseFailed {
			return conditions.False(c5c3v1alpha1.ReasonProjectFailed, fmt.Sprintf("the import of domain %s: %s: %s", o.DomainName, d.Reason, d.Message))
		}
		return conditions.Next()
	},
	projectProbe,
	projectState,
}

// ProjectCondition derives ProjectReady from o (projectReady).
func ProjectCondition(o Observation, gen int64) metav1.Condition {
	return projectReady.Condition(c5c3v1alpha1.ConditionProjectReady, o, gen)
}

// adminProject: the project resolves to the plane's admin project.
func adminProject(o Observation) (conditions.Verdict, bool) {
	return conditions.Collision(o.Admin != NotAdminProject, o.Admin == AdminProjectOwned, c5c3v1alpha1.ReasonProjectCollision,
		fmt.Sprintf("ControlPlane %s's admin project was edited onto the project this order owns: "+
			"change spec.korc.adminCredential on the ControlPlane back; do NOT delete this KeystoneProject, "+
			"its teardown would delete that project from Keystone", o.Plane),
		fmt.Sprintf("the project resolves to ControlPlane %s's admin project, which is never orderable; nothing was touched: "+
			"delete this KeystoneProject and re-create it with a projectName of its own", o.Plane))
}

// nameClaimed: another order holds the claim on the project's name.
func nameClaimed(o Observation) (conditions.Verdict, bool) {
	return conditions.Collision(o.ClaimHolder != "", o.ProjectExists, c5c3v1alpha1.ReasonProjectCollision,
		fmt.Sprintf("another order, %s, holds this project name in domain %s, and this order's K-ORC Project, created before name claims existed, "+
			"shares that Keystone project: do NOT delete this KeystoneProject, its teardown would delete the holder's project", o.ClaimHolder, o.DomainName),
		fmt.Sprintf("another order, %s, holds this project name in domain %s; two orders never share a Keystone project and nothing was touched: "+
			"delete this order and re-create it with spec.projectName set to a free name (the field is immutable), or delete the other order first", o.ClaimHolder, o.DomainName))
}

// projectProbe: the collision probe's verdict before the Project exists.
func projectProbe(o Observation) (conditions.Verdict, bool) {
	if o.ProjectExists {
		return conditions.Next()
	}
	return conditions.Probe{Result: o.Probe, External: o.External,
		Collision: c5c3v1alpha1.ReasonProjectCollision, Failed: c5c3v1alpha1.ReasonProjectFailed,
		Collided: fmt.Sprintf("a project of this name already exists in domain %s (id %s) that this order does not own; nothing was touched: "+
			"a KeystoneProject never adopts: delete this order and re-create it with spec.projectName set to a free name (the field is immutable)", o.DomainName, o.Probe.ID),
		Waiting:         conditions.ProbeWaitMessage(o.Probe, o.Domain, "the import of domain "+o.DomainName),
		ExternalWaiting: "collision probe: " + o.Probe.Message}.Verdict()
}

// projectState: the managed Project's state; Ready only with a project id.
func projectState(o Observation) (conditions.Verdict, bool) {
	p := o.Project
	if p.Phase == korc.PhaseAvailable {
		if p.ID == "" {
			return conditions.False(c5c3v1alpha1.ReasonWaitingForKeystoneProject, "the K-ORC Project is Available but reports no project id yet")
		}
		return conditions.True(c5c3v1alpha1.ReasonProjectProvisioned, fmt.Sprintf("the project exists in Keystone (id %s)", p.ID))
	}
	if _, v, decided := conditions.Available([]conditions.Child{{What: "the K-ORC Project", State: p}}, o.External,
		c5c3v1alpha1.ReasonProjectFailed); decided {
		return v, true
	}
	msg := "the K-ORC Project is not Available yet"
	if p.Message != "" {
		msg += ": " + p.Message
	}
	return conditions.False(c5c3v1alpha1.ReasonWaitingForKeystoneProject, msg)
}

// HeldCondition is ProjectReady while credential orders hold the deletion of
// the order named name (docs/reference/keystoneapplicationcredential.md,
// "Deletion Semantics").
func HeldCondition(h orders.Held, name string, gen int64) metav1.Condition {
	return metav1.Condition{Type: c5c3v1alpha1.ConditionProjectReady, Status: metav1.ConditionFalse, ObservedGeneration: gen,
		Reason: c5c3v1alpha1.ReasonReferencedByApplicationCredentials, Message: h.Message(orders.KindKeystoneProject, name)}
}

// UsersReferencing lists, sorted, the users (also ones being deleted) whose
// spec.defaultProjectRef names the project order name
// (docs/reference/keystoneproject.md, "Deletion Semantics").
func UsersReferencing(name string, users []c5c3v1alpha1.KeystoneUser) []string {
	var out []string
	for i := range users {
		if ref := users[i].Spec.DefaultProjectRef; ref != nil && ref.Name == name {
			out = append(out, users[i].Name)
		}
	}
	sort.Strings(out)
	return out
}

// HeldByUsersCondition is ProjectReady/ReferencedByUsers while users hold the
// deletion of the project order name.
func HeldByUsersCondition(users []string, name string, gen int64) metav1.Condition {
	return metav1.Condition{Type: c5c3v1alpha1.ConditionProjectReady, Status: metav1.ConditionFalse, ObservedGeneration: gen,
		Reason: c5c3v1alpha1.ReasonReferencedByUsers, Message: fmt.Sprintf(
			"KeystoneProject %s is being deleted but KeystoneUser %s names it in spec.defaultProjectRef, and K-ORC keeps a user's "+
				"default project: delete the user order(s) first", name, strings.Join(users, ", "))}
}

// DeletingCondition is ProjectReady while left children of the teardown remain.
func DeletingCondition(left int, failed error, gen int64) metav1.Condition {
	msg := fmt.Sprintf("the order is being deleted: waiting for K-ORC to delete the Keystone project (%d children left)", left)
	if failed != nil {
		msg += ": " + failed.Error()
	}
	return metav1.Condition{Type: c5c3v1alpha1.ConditionProjectReady, Status: metav1.ConditionFalse, ObservedGeneration: gen,
		Reason: c5c3v1alpha1.ReasonWaitingForKeystoneProject, Message: msg}
}

// Conditions are ProjectReady and the aggregate Ready.
func Conditions(project metav1.Condition, gen int64) []metav1.Condition {
	return []metav1.Condition{project, controlplane.ReadyCondition([]metav1.Condition{project}, gen)}
}

// StatusOf is the status after a pass: the ids and effective name once the
// K-ORC Project is Available, else prev's.
func StatusOf(prev c5c3v1alpha1.KeystoneProjectStatus, o Observation, effectiveName, domainID string) c5c3v1alpha1.KeystoneProjectStatus {
	s := prev
	if o.Gate.Passed() && o.ProjectExists && o.Project.Phase == korc.PhaseAvailable && o.Project.ID != "" {
		s.ProjectID, s.ProjectName = o.Project.ID, effectiveName
		if domainID != "" {
			s.DomainID = domainID
		}
	}
	return s
}

// RequeueAfter is the delay before the next unprompted pass
// (orders.RequeueAfter with orders.NotReadyBackoff).
func RequeueAfter(ready, onTarget bool, notReadyFor time.Duration) time.Duration {
	return orders.RequeueAfter(ready, onTarget, ReadyResync, orders.NotReadyBackoff(NotReadyRequeue, notReadyFor))
}

// description is spec.description for K-ORC: nil when empty (K-ORC's field
// has MinLength 1).
func description(d string) *string {
	if d == "" {
		return nil
	}
	return &d
}
