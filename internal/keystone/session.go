package keystone

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"

	"github.com/c5c3/orderhub/internal/version"
)

// Session is one long-lived admin connection to Keystone's identity v3 API.
// It authenticates on the first Connect (NewSession connects at once,
// NewLazySession waits), after which gophercloud renews the token
// (AllowReauth) when it expires or Keystone answers 401. A Session is safe for
// concurrent use.
type Session struct {
	// Identity is the identity v3 client, at Config.AuthURL. Requests through
	// it are valid only after Connect succeeded.
	Identity *gophercloud.ServiceClient
	// HTTPClient is the TLS-configured client shared by every request,
	// including password probes.
	HTTPClient http.Client
	// UserID is the ID of the user the session authenticates as (from the
	// first token), so controllers can refuse to manage their own account.
	// It is set by NewSession; after NewLazySession read Self instead.
	UserID  string
	authURL string

	cfg Config
	pc  *gophercloud.ProviderClient
	// ConnectRetry is the shortest gap between two authentication attempts
	// after a failure (default DefaultConnectRetry): callers that all find
	// the session unconnected share one attempt, so a rejected admin
	// password is not tried once per caller (each try is a failed login).
	ConnectRetry time.Duration
	now          func() time.Time

	mu        sync.Mutex
	connected bool
	lastErr   error
	lastTry   time.Time
}

// DefaultConnectRetry is Session.ConnectRetry's default.
const DefaultConnectRetry = 5 * time.Second

// NewSession authenticates with cfg and returns the session. It fails when the
// configuration is incomplete, the CA bundle cannot be read, or Keystone
// cannot be reached or rejects the credentials.
func NewSession(ctx context.Context, cfg Config) (*Session, error) {
	s, err := NewLazySession(cfg)
	if err != nil {
		return nil, err
	}
	if err := s.Connect(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// NewLazySession returns a session that authenticates on its first Connect,
// so a controller can start, serve its health endpoints and report per
// resource while Keystone is unreachable or rejects the admin. It fails only
// when the configuration is incomplete or the CA bundle cannot be read.
func NewLazySession(cfg Config) (*Session, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	hc, err := newHTTPClient(cfg)
	if err != nil {
		return nil, err
	}
	pc, err := openstack.NewClient(cfg.AuthURL)
	if err != nil {
		return nil, fmt.Errorf("keystone: auth URL %q: %w", cfg.AuthURL, err)
	}
	pc.HTTPClient = hc
	pc.UserAgent.Prepend(version.UserAgent())
	id, err := openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{})
	if err != nil {
		return nil, err
	}
	return &Session{Identity: id, HTTPClient: hc, authURL: cfg.AuthURL, cfg: cfg, pc: pc,
		ConnectRetry: DefaultConnectRetry, now: time.Now}, nil
}

// ConnectError is why a session could not authenticate. Its message names
// the endpoint or the admin credential (never the password), so it can be
// shown in a resource's status as it is.
type ConnectError struct {
	// Endpoint is the auth URL.
	Endpoint string
	// Credential describes the admin credential (Config.String without the URL).
	Credential string
	// Check names the settings to check when Keystone rejects the
	// credential; empty: those of a password.
	Check string
	// Rejected is true when Keystone answered and refused the credential (401);
	// false when it could not be reached or answered something else.
	Rejected bool
	Err      error
}

func (e *ConnectError) Error() string {
	if e.Rejected {
		check := e.Check
		if check == "" {
			check = "OS_USERNAME, OS_PASSWORD and the domains"
		}
		return fmt.Sprintf("Keystone at %s rejected the admin credential (%s; check %s, or the clouds.yaml): %v",
			e.Endpoint, e.Credential, check, e.Err)
	}
	if IsNetwork(e.Err) {
		return fmt.Sprintf("Keystone endpoint %s is unreachable (check OS_AUTH_URL): %v", e.Endpoint, e.Err)
	}
	return fmt.Sprintf("authenticate at Keystone endpoint %s as the admin (%s): %v", e.Endpoint, e.Credential, e.Err)
}

func (e *ConnectError) Unwrap() error { return e.Err }

// connectDecision is what Connect does: nothing (already connected), repeat
// the last failure (tried less than retry ago), or try.
type connectDecision int

const (
	connectDone connectDecision = iota
	connectRepeatFailure
	connectTry
)

// decideConnect is Connect's pure decision.
func decideConnect(connected bool, lastErr error, lastTry, now time.Time, retry time.Duration) connectDecision {
	switch {
	case connected:
		return connectDone
	case lastErr != nil && now.Sub(lastTry) < retry:
		return connectRepeatFailure
	}
	return connectTry
}

// Connect authenticates the session once. It returns nil when the session is
// connected, and a *ConnectError otherwise; after a failure, calls within
// ConnectRetry return the same error without a request.
func (s *Session) Connect(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	switch decideConnect(s.connected, s.lastErr, s.lastTry, now, s.ConnectRetry) {
	case connectDone:
		return nil
	case connectRepeatFailure:
		return s.lastErr
	}
	s.lastTry = now
	cfg := s.cfg
	ao := cfg.authOptions()
	if err := openstack.Authenticate(ctx, s.pc, ao); err != nil {
		s.lastErr = &ConnectError{Endpoint: cfg.AuthURL, Credential: cfg.credential(), Check: cfg.check(), Rejected: IsUnauthorized(err), Err: err}
		return s.lastErr
	}
	// A created token (password, application credential, rescoped token)
	// or a token used as it is (tokens.GetResult) both name their user.
	if r, ok := s.pc.GetAuthResult().(interface {
		ExtractUser() (*tokens.User, error)
	}); ok {
		if u, err := r.ExtractUser(); err == nil && u != nil {
			s.UserID = u.ID
		}
	}
	s.connected, s.lastErr = true, nil
	return nil
}

// WrapTransport wraps the HTTP transport of every request the session sends
// (admin requests, authentication and password probes), for example to count
// them. Call it before the session is used.
func (s *Session) WrapTransport(wrap func(http.RoundTripper) http.RoundTripper) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.HTTPClient.Transport = wrap(s.HTTPClient.Transport)
	s.pc.HTTPClient = s.HTTPClient
}

// Self is the ID of the user the session authenticates as, "" until Connect
// succeeded.
func (s *Session) Self() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.UserID
}

func newHTTPClient(cfg Config) (http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 32
	if cfg.CACert != "" || cfg.Insecure {
		tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.Insecure} //nolint:gosec // opt-in via OS_INSECURE
		if cfg.CACert != "" {
			pem, err := os.ReadFile(cfg.CACert)
			if err != nil {
				return http.Client{}, fmt.Errorf("keystone: read CA bundle: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return http.Client{}, fmt.Errorf("keystone: no certificate in %s", cfg.CACert)
			}
			tc.RootCAs = pool
		}
		tr.TLSClientConfig = tc
	}
	return http.Client{Transport: tr, Timeout: 60 * time.Second}, nil
}
