package korc

import (
	"strings"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// externalRule maps any of a set of substrings of a K-ORC message to a
// reason. A token in words matches only as a whole word (see containsWord).
type externalRule struct {
	reason string
	any    []string
	words  []string
}

// externalRules are ClassifyExternal's rules, most specific first
// (upstream c5c3, github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/external_mode.go;
// docs/reference/keystoneservice.md, "Conditions"). When
// a message matches several rules (K-ORC joins the errors of several calls,
// and a wrapped error keeps its inner text), the first rule wins.
var externalRules = []externalRule{
	{c5c3v1alpha1.ReasonCatalogEndpointMismatch, []string{"No suitable endpoint could be found in the service catalog"}, nil},
	{c5c3v1alpha1.ReasonCredentialDrift, []string{"identity:create_application_credential"}, nil},
	{c5c3v1alpha1.ReasonTLSVerificationFailed, []string{"x509"}, nil},
	{c5c3v1alpha1.ReasonAuthenticationFailed, []string{"Unauthorized"}, []string{"401"}},
	{c5c3v1alpha1.ReasonEndpointUnreachable, []string{"no such host", "connection refused", "dial tcp", "i/o timeout"}, nil},
}

// ClassifyExternal classifies a K-ORC child's state against an
// External-mode ControlPlane into one of the External-mode reasons of
// api/c5c3/v1alpha1 (CatalogEndpointMismatch, CredentialDrift,
// TLSVerificationFailed, AuthenticationFailed, EndpointUnreachable), which
// replace a bounded wait on any sub-condition
// (docs/reference/keystoneservice.md, "Conditions").
//
// K-ORC collapses these failures into the non-terminal TransientError, so
// they are told apart by substring of s.Message, case-sensitively as
// upstream does, first match winning in this order:
//
//   - "No suitable endpoint could be found in the service catalog" →
//     CatalogEndpointMismatch;
//   - "identity:create_application_credential" (Keystone's 403 policy
//     denial) → CredentialDrift;
//   - "x509" → TLSVerificationFailed;
//   - "401" (as a whole word, see containsWord; upstream matches any
//     substring) or "Unauthorized" → AuthenticationFailed;
//   - "no such host", "connection refused", "dial tcp" or "i/o timeout" →
//     EndpointUnreachable.
//
// Only PhaseProgressing, PhaseFailed and PhasePending states are classified.
// A PhaseAvailable state is never reclassified, because K-ORC leaves the
// last transient message on Progressing after the object became Available
// (upstream external_mode.go does the same). ok is false, and reason "", when the phase is
// Available or unknown, or the message matches no rule; the caller then
// keeps its own (bounded-wait or terminal) reason. The caller decides
// whether the plane is External; this function does not know.
func ClassifyExternal(s State) (reason string, ok bool) {
	switch s.Phase {
	case PhaseProgressing, PhaseFailed, PhasePending:
	default:
		return "", false
	}
	for _, r := range externalRules {
		for _, sub := range r.any {
			if strings.Contains(s.Message, sub) {
				return r.reason, true
			}
		}
		for _, w := range r.words {
			if containsWord(s.Message, w) {
				return r.reason, true
			}
		}
	}
	return "", false
}

// containsWord reports whether w occurs in s with no letter or digit
// directly before or after it. This keeps the status code 401 ("got 401
// instead", `"code": 401`) apart from the digits of a port, an address or a
// hex id ("127.0.0.1:4011", "…4015ab…"), which a plain substring match would
// classify as AuthenticationFailed ahead of EndpointUnreachable.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		if (start == 0 || !isAlnum(s[start-1])) && (end == len(s) || !isAlnum(s[end])) {
			return true
		}
		i = start + 1
	}
}

func isAlnum(b byte) bool {
	return '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}
