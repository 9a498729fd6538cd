package korc

import (
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Phase summarises a K-ORC object's conditions (K-ORC api/v1alpha1
// conditions.go: Available and Progressing, reasons Success, Progressing,
// TransientError and the terminal InvalidConfiguration / UnrecoverableError).
type Phase string

const (
	// PhasePending: K-ORC has not reported on the current generation yet.
	PhasePending Phase = "Pending"
	// PhaseProgressing: K-ORC works on the current generation (waiting on
	// OpenStack, a dependency, or retrying a transient error).
	PhaseProgressing Phase = "Progressing"
	// PhaseAvailable: Available=True, observed at the current generation.
	PhaseAvailable Phase = "Available"
	// PhaseFailed: a terminal error at the current generation; K-ORC stopped
	// retrying until the spec changes.
	PhaseFailed Phase = "Failed"
)

// State is what the hub reads from a K-ORC child.
type State struct {
	Phase Phase
	// Reason and Message are the Progressing condition's (for Available, the
	// Available condition's). Messages can carry OpenStack error text, never
	// credentials.
	Reason  string
	Message string
	// Transient is true when K-ORC reports a retryable error
	// (Progressing reason TransientError).
	Transient bool
	// ID is status.id, the OpenStack id; empty until resolved.
	ID string
}

// StateOf reads obj's state. Availability counts only when observed at the
// current generation (upstream's korcAvailableUpToDate); a terminal error
// only at the current generation too (orcv1alpha1.GetTerminalError).
func StateOf(obj orcv1alpha1.ObjectWithConditions) State {
	s := State{ID: IDOf(obj)}
	conds := obj.GetConditions()
	prog := meta.FindStatusCondition(conds, orcv1alpha1.ConditionProgressing)
	if AvailableUpToDate(obj) {
		a := meta.FindStatusCondition(conds, orcv1alpha1.ConditionAvailable)
		s.Phase, s.Reason, s.Message = PhaseAvailable, a.Reason, a.Message
		return s
	}
	if prog == nil || prog.ObservedGeneration != obj.GetGeneration() {
		s.Phase = PhasePending
		return s
	}
	s.Reason, s.Message = prog.Reason, prog.Message
	if orcv1alpha1.IsConditionReasonTerminal(prog.Reason) {
		s.Phase = PhaseFailed
		return s
	}
	s.Phase = PhaseProgressing
	s.Transient = prog.Reason == orcv1alpha1.ConditionReasonTransientError
	return s
}

// AvailableUpToDate reports Available=True observed at obj's current
// generation: the gate for using a child's id (orcv1alpha1.IsAvailable alone
// is generation-blind).
func AvailableUpToDate(obj orcv1alpha1.ObjectWithConditions) bool {
	a := meta.FindStatusCondition(obj.GetConditions(), orcv1alpha1.ConditionAvailable)
	return a != nil && a.Status == metav1.ConditionTrue && a.ObservedGeneration == obj.GetGeneration()
}

// IDOf returns status.id of the K-ORC kinds the hub projects (Domain,
// Project, Role, User, Service, Endpoint, ApplicationCredential), or "" when
// unset or for another kind.
func IDOf(obj orcv1alpha1.ObjectWithConditions) string {
	var id *string
	switch o := obj.(type) {
	case *orcv1alpha1.Domain:
		id = o.Status.ID
	case *orcv1alpha1.Project:
		id = o.Status.ID
	case *orcv1alpha1.Role:
		id = o.Status.ID
	case *orcv1alpha1.User:
		id = o.Status.ID
	case *orcv1alpha1.Service:
		id = o.Status.ID
	case *orcv1alpha1.Endpoint:
		id = o.Status.ID
	case *orcv1alpha1.ApplicationCredential:
		id = o.Status.ID
	}
	if id == nil {
		return ""
	}
	return *id
}

// AppliedPasswordRef returns the User's status.resource.appliedPasswordRef:
// the name of the password Secret K-ORC last applied to Keystone ("" when
// none, e.g. an adopted user before its first rotation,
// github.com/k-orc/openstack-resource-controller issue #920).
func AppliedPasswordRef(u *orcv1alpha1.User) string {
	if u.Status.Resource == nil {
		return ""
	}
	return u.Status.Resource.AppliedPasswordRef
}

// PasswordApplied reports whether K-ORC applied the password Secret
// passwordRef to the user: the rotation gate before delivering a password
// generation.
func PasswordApplied(u *orcv1alpha1.User, passwordRef string) bool {
	return passwordRef != "" && AppliedPasswordRef(u) == passwordRef
}
