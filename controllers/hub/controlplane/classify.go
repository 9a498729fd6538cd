package controlplane

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gophercloud/gophercloud/v2"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// MaxClassifiedMessage bounds a classified message (bytes; longer ones are
// cut and end in "...").
const MaxClassifiedMessage = 512

// Classify maps a failed admin token request to an AdminCredentialReady
// reason, most specific first, as upstream c5c3 classifies K-ORC
// messages (github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/external_mode.go):
//
//   - no identity endpoint for the region and interface in the catalog:
//     CatalogEndpointMismatch;
//   - an x509 / TLS verification failure: TLSVerificationFailed;
//   - HTTP 401: AuthenticationFailed;
//   - HTTP 403: CredentialDrift (the credential exists but may not act);
//   - no such host, connection refused, dial or i/o timeout, and any other
//     HTTP status (the URL does not serve a usable identity API):
//     EndpointUnreachable.
//
// The message is the error text, which carries no credential (gophercloud
// does not echo request bodies), without any response body (WithoutBody:
// the auth URL is the plane author's and may name any service the hub
// reaches), cut to MaxClassifiedMessage bytes.
func Classify(err error) (reason, message string) {
	err = WithoutBody(err)
	msg := err.Error()
	if len(msg) > MaxClassifiedMessage {
		msg = strings.ToValidUTF8(msg[:MaxClassifiedMessage], "") + "..."
	}
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidErr x509.CertificateInvalidError
	var notFound *gophercloud.ErrEndpointNotFound
	switch {
	case errors.As(err, &notFound) || strings.Contains(msg, "No suitable endpoint could be found"):
		return c5c3v1alpha1.ReasonCatalogEndpointMismatch, msg
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr),
		errors.As(err, &invalidErr), strings.Contains(msg, "x509"):
		return c5c3v1alpha1.ReasonTLSVerificationFailed, msg
	case gophercloud.ResponseCodeIs(err, http.StatusUnauthorized):
		return c5c3v1alpha1.ReasonAuthenticationFailed, msg
	case gophercloud.ResponseCodeIs(err, http.StatusForbidden):
		return c5c3v1alpha1.ReasonCredentialDrift, msg
	}
	var ue gophercloud.ErrUnexpectedResponseCode
	if errors.As(err, &ue) {
		return c5c3v1alpha1.ReasonEndpointUnreachable, fmt.Sprintf("Keystone answered HTTP %d: %s", ue.Actual, msg)
	}
	return c5c3v1alpha1.ReasonEndpointUnreachable, msg
}
