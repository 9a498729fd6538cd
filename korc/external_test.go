package korc

import (
	"testing"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// Messages as K-ORC relays them from gophercloud and net/http.
const (
	msgRefused     = `Get "https://keystone.example:5000/v3": dial tcp 127.0.0.1:1: connect: connection refused`
	msgNoHost      = `Post "https://keystone.invalid:5000/v3/auth/tokens": dial tcp: lookup keystone.invalid on 10.96.0.10:53: no such host`
	msgTimeout     = `Get "https://keystone.example:5000/v3": dial tcp 203.0.113.7:5000: i/o timeout`
	msgDialOnly    = `Get "https://keystone.example:5000/v3": dial tcp 203.0.113.7:5000: connect: network is unreachable`
	msgX509        = `Post "https://keystone.example:5000/v3/auth/tokens": tls: failed to verify certificate: x509: certificate signed by unknown authority`
	msgX509Name    = `Get "https://10.0.0.5:5000/v3": tls: failed to verify certificate: x509: certificate is valid for keystone.example, not 10.0.0.5`
	msg401         = `Expected HTTP response code [201 202] when accessing [POST https://keystone.example:5000/v3/auth/tokens], but got 401 instead: {"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}`
	msgUnauth      = `Authentication failed: Unauthorized`
	msgDrift       = `Expected HTTP response code [201] when accessing [POST https://keystone.example:5000/v3/users/5d2f/application_credentials], but got 403 instead: {"error": {"code": 403, "title": "Forbidden", "message": "You are not authorized to perform the requested action: identity:create_application_credential."}}`
	msgCatalog     = `No suitable endpoint could be found in the service catalog.`
	msgWaiting     = "Waiting for OpenStack resource to be created externally"
	msgConflict409 = `Expected HTTP response code [201] when accessing [POST https://keystone.example:5000/v3/services], but got 409 instead`
)

func TestClassifyExternal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		state  State
		reason string // "" for not classified
	}{
		// One rule each.
		{"connection refused", State{Phase: PhaseProgressing, Transient: true, Message: msgRefused}, c5c3v1alpha1.ReasonEndpointUnreachable},
		{"no such host", State{Phase: PhaseProgressing, Transient: true, Message: msgNoHost}, c5c3v1alpha1.ReasonEndpointUnreachable},
		{"i/o timeout", State{Phase: PhaseProgressing, Transient: true, Message: msgTimeout}, c5c3v1alpha1.ReasonEndpointUnreachable},
		{"dial tcp alone", State{Phase: PhaseProgressing, Transient: true, Message: msgDialOnly}, c5c3v1alpha1.ReasonEndpointUnreachable},
		{"unknown authority", State{Phase: PhaseProgressing, Transient: true, Message: msgX509}, c5c3v1alpha1.ReasonTLSVerificationFailed},
		{"certificate name mismatch", State{Phase: PhaseProgressing, Transient: true, Message: msgX509Name}, c5c3v1alpha1.ReasonTLSVerificationFailed},
		{"401 from gophercloud", State{Phase: PhaseProgressing, Transient: true, Message: msg401}, c5c3v1alpha1.ReasonAuthenticationFailed},
		{"Unauthorized", State{Phase: PhaseProgressing, Transient: true, Message: msgUnauth}, c5c3v1alpha1.ReasonAuthenticationFailed},
		{"403 on the application credential policy", State{Phase: PhaseProgressing, Transient: true, Message: msgDrift}, c5c3v1alpha1.ReasonCredentialDrift},
		{"catalog endpoint missing", State{Phase: PhaseProgressing, Transient: true, Message: msgCatalog}, c5c3v1alpha1.ReasonCatalogEndpointMismatch},

		// Precedence when two rules match: the more specific wins.
		{"catalog beats 401", State{Phase: PhaseProgressing, Message: msg401 + "; " + msgCatalog}, c5c3v1alpha1.ReasonCatalogEndpointMismatch},
		{"catalog beats unreachable", State{Phase: PhaseProgressing, Message: msgRefused + "; " + msgCatalog}, c5c3v1alpha1.ReasonCatalogEndpointMismatch},
		{"credential drift beats a 401", State{Phase: PhaseProgressing, Message: msg401 + "; " + msgDrift}, c5c3v1alpha1.ReasonCredentialDrift},
		{"x509 beats dial tcp", State{Phase: PhaseProgressing, Message: `Get "https://keystone.example:5000/v3": dial tcp 203.0.113.7:5000: remote error: x509: certificate has expired`}, c5c3v1alpha1.ReasonTLSVerificationFailed},
		{"x509 beats Unauthorized", State{Phase: PhaseProgressing, Message: msgUnauth + "; " + msgX509}, c5c3v1alpha1.ReasonTLSVerificationFailed},
		{"401 beats connection refused", State{Phase: PhaseProgressing, Message: msgRefused + "; " + msg401}, c5c3v1alpha1.ReasonAuthenticationFailed},

		// 401 only as a status code, not as digits of a port, address or id.
		{"port 4011 is not a 401", State{Phase: PhaseProgressing, Message: `Get "https://keystone.example:4011/v3": dial tcp 127.0.0.1:4011: connect: connection refused`}, c5c3v1alpha1.ReasonEndpointUnreachable},
		{"an id containing 401 is not a 401", State{Phase: PhaseProgressing, Message: `Get "https://keystone.example:5000/v3/users/a4015e": dial tcp 127.0.0.1:5000: i/o timeout`}, c5c3v1alpha1.ReasonEndpointUnreachable},
		{"401 at the end of the message", State{Phase: PhaseProgressing, Message: "got 401"}, c5c3v1alpha1.ReasonAuthenticationFailed},

		// Phases.
		{"a terminal failure is classified", State{Phase: PhaseFailed, Reason: "UnrecoverableError", Message: msgX509}, c5c3v1alpha1.ReasonTLSVerificationFailed},
		{"a pending state with a message is classified", State{Phase: PhasePending, Message: msgRefused}, c5c3v1alpha1.ReasonEndpointUnreachable},
		{"an Available state is never reclassified", State{Phase: PhaseAvailable, ID: "abc", Message: msg401}, ""},
		{"an Available state with a stale x509 message", State{Phase: PhaseAvailable, ID: "abc", Message: msgX509}, ""},
		{"an unknown phase is not classified", State{Message: msgRefused}, ""},

		// Nothing to classify.
		{"empty message", State{Phase: PhasePending}, ""},
		{"a plain wait", State{Phase: PhaseProgressing, Message: msgWaiting}, ""},
		{"another HTTP error", State{Phase: PhaseProgressing, Transient: true, Message: msgConflict409}, ""},
		{"matching is case-sensitive as upstream's", State{Phase: PhaseProgressing, Message: "CONNECTION REFUSED"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			reason, ok := ClassifyExternal(tc.state)
			if reason != tc.reason || ok != (tc.reason != "") {
				t.Errorf("ClassifyExternal(%+v) = %q, %v; want %q", tc.state, reason, ok, tc.reason)
			}
		})
	}
}
