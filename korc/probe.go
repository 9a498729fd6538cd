package korc

import (
	"strings"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
)

// ImportPendingExternalMessage is the progress message K-ORC writes on an
// unmanaged import whose filter matches nothing (internal/controllers/generic
// progress.WaitingOnOpenStack(WaitingOnCreation)); the collision probe reads
// it as "absent".
const ImportPendingExternalMessage = "Waiting for OpenStack resource to be created externally"

// ProbeOutcome is the verdict of a collision probe: a short-lived unmanaged
// import run before every managed create (docs/reference/keystoneservice.md,
// "Collision and adoption").
type ProbeOutcome string

const (
	// ProbePending: the probe has not resolved yet (ProbingForCollision).
	// Message carries K-ORC's text, e.g. a transient authentication error.
	ProbePending ProbeOutcome = "Pending"
	// ProbeFound: exactly one resource matches; ProbeResult.ID is its id.
	ProbeFound ProbeOutcome = "Found"
	// ProbeAbsent: nothing matches; a managed create is safe.
	ProbeAbsent ProbeOutcome = "Absent"
	// ProbeError: K-ORC reported a terminal error, e.g. the filter matches
	// more than one resource (InvalidConfiguration).
	ProbeError ProbeOutcome = "Error"
)

// ProbeResult is a probe's outcome with what explains it.
type ProbeResult struct {
	Outcome ProbeOutcome
	// ID is the matching resource's id, for ProbeFound.
	ID string
	// Transient is true for a ProbePending on a retryable K-ORC error.
	Transient bool
	// Reason and Message are K-ORC's, for ProbePending and ProbeError.
	Reason, Message string
}

// Probe classifies a probe import from its conditions, at its current
// generation only:
//
//   - Available=True: found;
//   - Progressing=True/Progressing whose message says the resource waits to
//     be created externally: absent;
//   - a terminal reason: error;
//   - anything else (no status yet, a transient error, another wait): pending.
//
// It is pure: the caller reads the object and deletes the probe after a
// verdict.
func Probe(obj orcv1alpha1.ObjectWithConditions) ProbeResult {
	s := StateOf(obj)
	switch s.Phase {
	case PhaseAvailable:
		return ProbeResult{Outcome: ProbeFound, ID: s.ID}
	case PhaseFailed:
		return ProbeResult{Outcome: ProbeError, Reason: s.Reason, Message: s.Message}
	case PhaseProgressing:
		if s.Reason == orcv1alpha1.ConditionReasonProgressing && strings.Contains(s.Message, ImportPendingExternalMessage) {
			return ProbeResult{Outcome: ProbeAbsent}
		}
		return ProbeResult{Outcome: ProbePending, Transient: s.Transient, Reason: s.Reason, Message: s.Message}
	}
	return ProbeResult{Outcome: ProbePending}
}

// ProbeAction is what to do with a collision probe's verdict.
type ProbeAction string

const (
	// ProbeWait: no verdict yet (ProbingForCollision).
	ProbeWait ProbeAction = "Wait"
	// ProbeCollide: a row exists and adopt is not set (the kind's collision reason).
	ProbeCollide ProbeAction = "Collide"
	// ProbeCreate: nothing exists, or a row exists and adopt consents: create
	// the managed Service (K-ORC adopts an exact match) and drop the probe.
	ProbeCreate ProbeAction = "Create"
	// ProbeFail: K-ORC reported a terminal error on the probe, e.g. more
	// than one row matches (the kind's failure reason).
	ProbeFail ProbeAction = "Fail"
)

// DecideProbe maps a probe verdict and whether the order consents to adopt
// (a KeystoneService's catalog.adopt; orders never adopt) to an action
// (docs/reference/keystoneservice.md, "Collision and adoption").
func DecideProbe(r ProbeResult, adopt bool) ProbeAction {
	switch r.Outcome {
	case ProbeAbsent:
		return ProbeCreate
	case ProbeFound:
		if adopt {
			return ProbeCreate
		}
		return ProbeCollide
	case ProbeError:
		return ProbeFail
	}
	return ProbeWait
}
