package keystoneproject

import (
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

// Requeue intervals. Children and the plane are watched, so these only
// bound how long Keystone-side drift stays unnoticed: a project that is not
// Ready is looked at again after NotReadyRequeue, a Ready one after
// ReadyResync. An order on a target cluster waits at most
// orders.RequeueTarget (docs/reference/keystoneapplicationcredential.md,
// "Conditions").
const (
	NotReadyRequeue = 15 * time.Second
	ReadyResync     = 10 * time.Minute
)

// EffectiveProjectName is the Keystone project name the order creates:
// spec.projectName, or metadata.name when unset
// (docs/reference/keystoneproject.md "KeystoneProjectSpec").
func EffectiveProjectName(kp *c5c3v1alpha1.KeystoneProject) string {
	if n := kp.Spec.ProjectName; n != "" {
		return string(n)
	}
	return kp.Name
}

// EffectiveDomain is the project's domain: spec.domainName, or the plane's
// admin domain (controlplane.AdminOf(cp).Domain) when unset.
func EffectiveDomain(kp *c5c3v1alpha1.KeystoneProject, cp *c5c3v1alpha1.ControlPlane) string {
	if d := kp.Spec.DomainName; d != "" {
		return string(d)
	}
	return controlplane.AdminOf(cp).Domain
}

// IsAdminDomain reports whether domain is the plane's admin domain, compared
// the way Keystone compares names (keystone.SameIdentityName): then the
// plane's own Domain import (korc.AdminDomainImportName) is referenced and
// the order projects no Domain import of its own.
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

// AdminProjectOf decides the admin-project refusal: the effective project
// name and domain compared with the plane's admin project and domain the way
// Keystone compares them (case- and accent-folding). owns is whether the
// order already has its managed Project child. The admin project is never
// orderable, like the admin identity of a KeystoneService
// (docs/reference/keystoneservice.md, "The admin identity is never
// registrable").
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
	// ClaimHolder names the order holding the claim on the project's name
	// ("<Kind>/<cluster>/<namespace>/<name>", orders.Acquire) when it is
	// another order (breaker H3).
	ClaimHolder string
	// Error is a Kubernetes-level failure (ProjectError).
	Error error
	// Domain is the state of the order's own Domain import; when the
	// project lives in the plane's admin domain, the plane's import of it
	// on every pass that begins without the managed Project, else nil.
	// DomainName names it.
	Domain     *korc.State
	DomainName string
	// ProjectExists is true once the managed Project child exists; the
	// probe is not consulted any more.
	ProjectExists bool
	// Probe is the collision probe's verdict while ProjectExists is false.
	Probe korc.ProbeResult
	// Project is the managed Project's state (ProjectExists).
	Project korc.State
}

// projectReady is the ProjectReady chain
// (docs/reference/keystoneproject.md "Conditions"), first match wins: the
// shared gate; the admin project and a held name claim (ProjectCollision);
// a Kubernetes error (ProjectError); a failed domain import; before the
// managed Project exists, the probe; else the Project's own state. A held
// deletion is HeldCondition.
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
	switch o.Admin {
	case AdminProjectNotOwned:
		return conditions.False(c5c3v1alpha1.ReasonProjectCollision, fmt.Sprintf(
			"the project resolves to ControlPlane %s's admin project, which is never orderable; nothing was touched: "+
				"delete this KeystoneProject and re-create it with a projectName of its own", o.Plane))
	case AdminProjectOwned:
		return conditions.False(c5c3v1alpha1.ReasonProjectCollision, fmt.Sprintf(
			"ControlPlane %s's admin project was edited onto the project this order owns: "+
				"change spec.korc.adminCredential on the ControlPlane back; do NOT delete this KeystoneProject, "+
				"its teardown would delete that project from Keystone", o.Plane))
	}
	return conditions.Next()
}

// nameClaimed: another order holds the claim on the project's name.
func nameClaimed(o Observation) (conditions.Verdict, bool) {
	switch {
	case o.ClaimHolder == "":
		return conditions.Next()
	case o.ProjectExists:
		return conditions.False(c5c3v1alpha1.ReasonProjectCollision, fmt.Sprintf(
			"another order, %s, holds this project name in domain %s, and this order's K-ORC Project, created before name claims existed, "+
				"shares that Keystone project: do NOT delete this KeystoneProject, its teardown would delete the holder's project", o.ClaimHolder, o.DomainName))
	}
	return conditions.False(c5c3v1alpha1.ReasonProjectCollision, fmt.Sprintf(
		"another order, %s, holds this project name in domain %s; two orders never share a Keystone project and nothing was touched: "+
			"delete this order and re-create it with spec.projectName set to a free name (the field is immutable), or delete the other order first", o.ClaimHolder, o.DomainName))
}

// projectProbe: before the managed Project exists, the collision probe's
// verdict.
func projectProbe(o Observation) (conditions.Verdict, bool) {
	if o.ProjectExists {
		return conditions.Next()
	}
	switch korc.DecideProbe(o.Probe, false) {
	case korc.ProbeCollide:
		return conditions.False(c5c3v1alpha1.ReasonProjectCollision, fmt.Sprintf(
			"a project of this name already exists in domain %s (id %s) that this order does not own; nothing was touched: "+
				"a KeystoneProject never adopts: delete this order and re-create it with spec.projectName set to a free name (the field is immutable)", o.DomainName, o.Probe.ID))
	case korc.ProbeFail:
		return conditions.False(c5c3v1alpha1.ReasonProjectFailed, "collision probe: "+o.Probe.Reason+": "+o.Probe.Message)
	case korc.ProbeWait:
		if reason, ok := conditions.ExternalCause(o.External, korc.State{Phase: korc.PhaseProgressing, Message: o.Probe.Message}); ok {
			return conditions.False(reason, "collision probe: "+o.Probe.Message)
		}
		return conditions.False(c5c3v1alpha1.ReasonProbingForCollision,
			conditions.ProbeWaitMessage(o.Probe, o.Domain, "the import of domain "+o.DomainName))
	}
	return conditions.Next()
}

// projectState: the managed Project's state; Ready only with the id
// StatusOf records (K-ORC writes its status in more than one request, and
// one refused can leave Available without status.id for a while).
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

// UsersReferencing lists, sorted, the KeystoneUsers of users whose
// spec.defaultProjectRef names the project order name; every one counts,
// also one being deleted: K-ORC keeps a project while a user's default
// project is it (finalizer openstack.k-orc.cloud/user), so the project's
// deletion waits for them (breaker M1).
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

// HeldByUsersCondition is ProjectReady while the KeystoneUsers users name
// the project order name as their default project: the deletion is held
// (UsersReferencing), reason ReferencedByUsers.
func HeldByUsersCondition(users []string, name string, gen int64) metav1.Condition {
	return metav1.Condition{Type: c5c3v1alpha1.ConditionProjectReady, Status: metav1.ConditionFalse, ObservedGeneration: gen,
		Reason: c5c3v1alpha1.ReasonReferencedByUsers, Message: fmt.Sprintf(
			"KeystoneProject %s is being deleted but KeystoneUser %s names it in spec.defaultProjectRef, and K-ORC keeps a user's "+
				"default project: delete the user order(s) first", name, strings.Join(users, ", "))}
}

// DeletingCondition is ProjectReady while the teardown waits for its
// children (left of them still listed) to go, K-ORC deleting the Keystone
// project.
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

// StatusOf is the status fields after a pass: projectID, projectName (the
// effective name) and domainID once the K-ORC Project is Available at its
// current generation, else prev's (ids do not change, and a frozen or
// waiting order keeps what it reported).
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

// RequeueAfter is the delay before the next unprompted pass: ReadyResync
// for a Ready order; for one not Ready for notReadyFor (orders.NotReadyFor)
// NotReadyRequeue, backing off to orders.NotReadyCap
// (orders.NotReadyBackoff); at most orders.RequeueTarget for an order on a
// target cluster (orders.RequeueAfter).
func RequeueAfter(ready, onTarget bool, notReadyFor time.Duration) time.Duration {
	return orders.RequeueAfter(ready, onTarget, ReadyResync, orders.NotReadyBackoff(NotReadyRequeue, notReadyFor))
}

// description is the K-ORC description of spec.description: nil for an
// empty one (K-ORC's field has MinLength 1; K-ORC then writes "" to
// Keystone, clearing a description set before).
func description(d string) *string {
	if d == "" {
		return nil
	}
	return &d
}
