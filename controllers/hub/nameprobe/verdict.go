package nameprobe

import (
	"fmt"
	"strings"

	"github.com/c5c3/orderhub/korc"
)

// ReasonProbeUnanswered is the ProbePending reason of a probe Keystone did
// not answer (Verdict).
const ReasonProbeUnanswered = "ProbeUnanswered"

// Verdict reads a probe of what ("project", "user") that listed ids or
// failed with err: err is a transient ProbePending naming it; no id is
// ProbeAbsent; one is ProbeFound; more is ProbeError (Keystone keeps these
// names unique per domain, so it means the domain was not narrowed).
func Verdict(what string, ids []string, err error) korc.ProbeResult {
	switch {
	case err != nil:
		return korc.ProbeResult{Outcome: korc.ProbePending, Transient: true, Reason: ReasonProbeUnanswered,
			Message: fmt.Sprintf("the %s lookup with the plane's admin credential failed: %v", what, err)}
	case len(ids) == 0:
		return korc.ProbeResult{Outcome: korc.ProbeAbsent}
	case len(ids) == 1:
		return korc.ProbeResult{Outcome: korc.ProbeFound, ID: ids[0]}
	}
	return korc.ProbeResult{Outcome: korc.ProbeError, Reason: "MultipleMatches",
		Message: fmt.Sprintf("%d %ss match (ids %s)", len(ids), what, strings.Join(ids, ", "))}
}

// DomainID is the id of domain (the state of the import of the domain the
// name lives in; nil: not read yet) once it is Available, else "": the
// probe waits for it.
func DomainID(domain *korc.State) string {
	if domain == nil || domain.Phase != korc.PhaseAvailable {
		return ""
	}
	return domain.ID
}
