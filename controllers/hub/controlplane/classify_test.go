package controlplane

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
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
