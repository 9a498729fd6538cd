package conditions

import (
	"fmt"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/korc"
)

// Child is a K-ORC child a condition waits on: What names it in messages;
// Absent says it is not applied yet.
type Child struct {
	What   string
	State  korc.State
	Absent bool
}

// Available checks children in order: an Absent one waits ("<What> is not
// registered yet"), the first Failed one decides
// failedReason ("<What>: <reason>: <message>"), and against an
// External-mode plane (external) the first whose wait korc.ClassifyExternal
// names decides that reason ("<What>: <message>"). Otherwise waiting lists
// each child not Available ("<What> is not Available yet (<message>)").
func Available(children []Child, external bool, failedReason string) (waiting []string, v Verdict, decided bool) {
	for _, c := range children {
		s := c.State
		switch {
		case c.Absent:
			waiting = append(waiting, c.What+" is not registered yet")
			continue
		case s.Phase == korc.PhaseAvailable:
			continue
		case s.Phase == korc.PhaseFailed:
			v, decided = False(failedReason, fmt.Sprintf("%s: %s: %s", c.What, s.Reason, s.Message))
			return nil, v, decided
		}
		if reason, ok := ExternalCause(external, s); ok {
			v, decided = False(reason, c.What+": "+s.Message)
			return nil, v, decided
		}
		w := c.What + " is not Available yet"
		if s.Message != "" {
			w += " (" + s.Message + ")"
		}
		waiting = append(waiting, w)
	}
	return waiting, Verdict{}, false
}

// ExternalCause is korc.ClassifyExternal(s) against an External-mode plane
// (external); ok is false otherwise.
func ExternalCause(external bool, s korc.State) (reason string, ok bool) {
	if !external {
		return "", false
	}
	return korc.ClassifyExternal(s)
}

// ProbeWaitMessage says why a collision probe has no verdict yet: the
// domain import it needs (domain, named importWhat) is not Available, or
// the probe's own message.
func ProbeWaitMessage(probe korc.ProbeResult, domain *korc.State, importWhat string) string {
	msg := "the collision probe has not resolved yet"
	if domain != nil && domain.Phase != korc.PhaseAvailable {
		msg += ": waiting for " + importWhat + ", which must exist in Keystone"
		if domain.Message != "" {
			msg += " (" + domain.Message + ")"
		}
	} else if probe.Message != "" {
		msg += ": " + probe.Message
	}
	return msg
}

// Collision is the rung of a name or identity the order must not take: Next
// unless hit; else False(reason, ownedMsg) when the order already owns the
// Keystone object at stake (owned: its teardown would delete it), or
// False(reason, refusedMsg) when nothing was touched.
func Collision(hit, owned bool, reason, ownedMsg, refusedMsg string) (Verdict, bool) {
	switch {
	case !hit:
		return Next()
	case owned:
		return False(reason, ownedMsg)
	}
	return False(reason, refusedMsg)
}

// Probe is a collision probe before the Keystone object it guards exists.
type Probe struct {
	Result korc.ProbeResult
	// External: the plane is External-mode (ExternalCause).
	External bool
	// Collision and Failed are the kind's reasons; Collided is the message of
	// a collision.
	Collision, Failed, Collided string
	// Waiting is the ProbingForCollision message, ExternalWaiting that of an
	// external cause.
	Waiting, ExternalWaiting string
}

// Verdict is p's rung (korc.DecideProbe, never adopting): Collide is
// False(Collision, Collided), Fail False(Failed, "collision probe: <reason>:
// <message>"), Wait the external cause of the probe's message or
// ProbingForCollision.
func (p Probe) Verdict() (Verdict, bool) {
	switch korc.DecideProbe(p.Result, false) {
	case korc.ProbeCollide:
		return False(p.Collision, p.Collided)
	case korc.ProbeFail:
		return False(p.Failed, "collision probe: "+p.Result.Reason+": "+p.Result.Message)
	case korc.ProbeWait:
		if reason, ok := ExternalCause(p.External, korc.State{Phase: korc.PhaseProgressing, Message: p.Result.Message}); ok {
			return False(reason, p.ExternalWaiting)
		}
		return False(c5c3v1alpha1.ReasonProbingForCollision, p.Waiting)
	}
	return Next()
}
