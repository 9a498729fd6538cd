package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"

	"github.com/c5c3/orderhub/internal/backendmetrics"
	"github.com/c5c3/orderhub/internal/version"
)

// TokenRequest is what a Verifier authenticates with: the admin password
// cloud's identity, and the catalog entry K-ORC will look the identity
// endpoint up by. An empty Project asks for an unscoped token and skips the
// catalog check (a user without a role on any project can only get that).
type TokenRequest struct {
	AuthURL                         string
	User, Password, Domain, Project string
	Region, Interface               string
	// CABundle is a PEM bundle to verify an https AuthURL with; empty uses
	// the system roots.
	CABundle []byte
}

// Verifier requests a token for the admin credential. It returns nil when
// Keystone issued one and the catalog holds an identity endpoint for the
// region and interface, or the failure (see Classify).
type Verifier interface {
	Verify(ctx context.Context, r TokenRequest) error
}

// KeystoneVerifier is the Verifier making a real token request with
// gophercloud. Timeout bounds the whole request (default 20 s).
type KeystoneVerifier struct {
	Timeout time.Duration
}

var _ Verifier = KeystoneVerifier{}

// Verify implements Verifier.
func (v KeystoneVerifier) Verify(ctx context.Context, r TokenRequest) error {
	timeout := v.Timeout
	if timeout == 0 {
		timeout = 20 * time.Second
	}
	if err := CheckAuthURL(r.AuthURL); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// orderhub/<version>, then the controller's name: tells the plane's checks
	// from K-ORC's requests in Keystone's access log.
	pc, tr, err := NewProviderClient(r.AuthURL, r.CABundle, timeout, ControllerName)
	if err != nil {
		return err
	}
	defer tr.CloseIdleConnections()
	ao := gophercloud.AuthOptions{
		IdentityEndpoint: r.AuthURL, Username: r.User, Password: r.Password, DomainName: r.Domain,
	}
	if r.Project != "" {
		ao.Scope = &gophercloud.AuthScope{ProjectName: r.Project, DomainName: r.Domain}
	}
	if err := openstack.Authenticate(ctx, pc, ao); err != nil {
		return WithoutBody(err)
	}
	if r.Project == "" {
		return nil
	}
	_, err = openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{
		Region: r.Region, Availability: gophercloud.Availability(r.Interface)})
	return WithoutBody(err)
}

// NewProviderClient is a gophercloud identity client for authURL trusting ca
// (PEM; empty: system roots), with timeout and the User-Agent
// "orderhub/<version> <agents...>", its requests counted in
// orderhub_backend_requests_total; the caller closes idle connections.
// Errors: a bundle without a PEM certificate, an unparsable auth URL.
func NewProviderClient(authURL string, ca []byte, timeout time.Duration, agents ...string) (*gophercloud.ProviderClient, *http.Transport, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if len(ca) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return nil, nil, errors.New("x509: the CA bundle holds no PEM certificate")
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	pc, err := openstack.NewClient(authURL)
	if err != nil {
		return nil, nil, err
	}
	pc.HTTPClient = http.Client{Transport: backendmetrics.Transport(backendmetrics.BackendKeystone, tr), Timeout: timeout}
	pc.UserAgent.Prepend(append([]string{version.UserAgent()}, agents...)...)
	return pc, tr, nil
}

// MaxURLInMessage bounds the URL a status message repeats (bytes; longer
// ones are cut and end in "...").
const MaxURLInMessage = 256

// CheckAuthURL refuses an auth URL with a query or fragment (the token
// request appends auth/tokens; the CRD refuses both too).
func CheckAuthURL(authURL string) error {
	u, err := url.Parse(authURL)
	if err != nil {
		return fmt.Errorf("the auth URL %s does not parse: %w", truncate(authURL), err)
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(authURL, "?#") {
		return fmt.Errorf("the auth URL %s carries a query or a fragment; name the Keystone v3 URL itself", truncate(authURL))
	}
	return nil
}

// ResponseError is an unexpected HTTP answer without its body (a status
// message must not repeat what the URL served); it unwraps to a body-less
// gophercloud.ErrUnexpectedResponseCode.
type ResponseError struct {
	inner gophercloud.ErrUnexpectedResponseCode
}

func (e *ResponseError) Error() string {
	return fmt.Sprintf("HTTP %d from %s %s (response body not shown)", e.inner.Actual, e.inner.Method, e.inner.URL)
}

// Unwrap returns the body-less gophercloud error.
func (e *ResponseError) Unwrap() error { return e.inner }

// WithoutBody replaces an unexpected-response error in err by a
// *ResponseError (status code, method and the URL cut to
// MaxURLInMessage); any other error, and nil, are returned as they are.
func WithoutBody(err error) error {
	var ue gophercloud.ErrUnexpectedResponseCode
	if !errors.As(err, &ue) {
		return err
	}
	return &ResponseError{inner: gophercloud.ErrUnexpectedResponseCode{URL: truncate(ue.URL), Method: ue.Method,
		Expected: ue.Expected, Actual: ue.Actual}}
}

func truncate(s string) string {
	if len(s) <= MaxURLInMessage {
		return s
	}
	return strings.ToValidUTF8(s[:MaxURLInMessage], "") + "..."
}
