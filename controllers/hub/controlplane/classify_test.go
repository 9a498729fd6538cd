package controlplane

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	code := func(c int) error {
		return gophercloud.ErrUnexpectedResponseCode{Method: "POST", URL: "http://k/v3/auth/tokens", Actual: c}
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"401", fmt.Errorf("auth: %w", code(http.StatusUnauthorized)), c5c3v1alpha1.ReasonAuthenticationFailed},
		{"403", code(http.StatusForbidden), c5c3v1alpha1.ReasonCredentialDrift},
		{"500", code(http.StatusInternalServerError), c5c3v1alpha1.ReasonEndpointUnreachable},
		{"connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}, c5c3v1alpha1.ReasonEndpointUnreachable},
		{"no such host", &net.DNSError{Err: "no such host", Name: "keystone.invalid", IsNotFound: true}, c5c3v1alpha1.ReasonEndpointUnreachable},
		{"unknown authority", fmt.Errorf("Post: %w", x509.UnknownAuthorityError{}), c5c3v1alpha1.ReasonTLSVerificationFailed},
		{"x509 text", errors.New("tls: failed to verify certificate: x509: certificate signed by unknown authority"), c5c3v1alpha1.ReasonTLSVerificationFailed},
		{"no catalog endpoint", &gophercloud.ErrEndpointNotFound{}, c5c3v1alpha1.ReasonCatalogEndpointMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got, msg := Classify(tc.err); got != tc.want || msg == "" {
				t.Errorf("Classify(%v) = %q (%q), want %q", tc.err, got, msg, tc.want)
			}
		})
	}
}

// TestClassifyNeverCarriesABody: an unexpected answer's body never reaches
// the message, and a long error is cut to MaxClassifiedMessage.
func TestClassifyNeverCarriesABody(t *testing.T) {
	t.Parallel()
	_, msg := Classify(fmt.Errorf("auth: %w", gophercloud.ErrUnexpectedResponseCode{Method: "POST", URL: "http://k/api/auth/tokens",
		Actual: http.StatusInternalServerError, Body: []byte("PRIVATE-BODY")}))
	if strings.Contains(msg, "PRIVATE-BODY") || !strings.Contains(msg, "HTTP 500") {
		t.Errorf("message %q", msg)
	}
	if _, msg := Classify(errors.New(strings.Repeat("x", 4*MaxClassifiedMessage))); len(msg) > MaxClassifiedMessage+3 {
		t.Errorf("message of %d bytes", len(msg))
	}
}
