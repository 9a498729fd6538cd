package keystone

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"

	"github.com/c5c3/orderhub/internal/version"
)

// Session is one long-lived admin connection to Keystone's identity v3 API.
// The token is renewed by gophercloud (AllowReauth) when it expires or
// Keystone answers 401. A Session is safe for concurrent use.
type Session struct {
	// Identity is the identity v3 client, at Config.AuthURL.
	Identity *gophercloud.ServiceClient
	// HTTPClient is the TLS-configured client shared by every request,
	// including password probes.
	HTTPClient http.Client
	// UserID is the ID of the user the session authenticates as (from the
	// first token), so controllers can refuse to manage their own account.
	UserID  string
	authURL string
}

// NewSession authenticates with cfg and returns the session. It fails when the
// configuration is incomplete, the CA bundle cannot be read, or Keystone
// rejects the credentials.
func NewSession(ctx context.Context, cfg Config) (*Session, error) {
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
	ao := gophercloud.AuthOptions{
		IdentityEndpoint: cfg.AuthURL,
		Username:         cfg.Username,
		UserID:           cfg.UserID,
		Password:         cfg.Password,
		DomainName:       cfg.UserDomainName,
		DomainID:         cfg.UserDomainID,
		AllowReauth:      true,
	}
	if cfg.ProjectName != "" || cfg.ProjectID != "" {
		ao.Scope = &gophercloud.AuthScope{ProjectName: cfg.ProjectName, ProjectID: cfg.ProjectID,
			DomainName: cfg.ProjectDomainName, DomainID: cfg.ProjectDomainID}
	}
	if err := openstack.Authenticate(ctx, pc, ao); err != nil {
		return nil, fmt.Errorf("keystone: authenticate at %s: %w", cfg.AuthURL, err)
	}
	id, err := openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{})
	if err != nil {
		return nil, err
	}
	sess := &Session{Identity: id, HTTPClient: hc, authURL: cfg.AuthURL}
	if r, ok := pc.GetAuthResult().(tokens.CreateResult); ok {
		if u, err := r.ExtractUser(); err == nil && u != nil {
			sess.UserID = u.ID
		}
	}
	return sess, nil
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
