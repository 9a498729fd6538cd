package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"

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
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if len(r.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(r.CABundle) {
			return errors.New("x509: the CA bundle holds no PEM certificate")
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	defer tr.CloseIdleConnections()
	pc, err := openstack.NewClient(r.AuthURL)
	if err != nil {
		return err
	}
	pc.HTTPClient = http.Client{Transport: tr, Timeout: timeout}
	pc.UserAgent.Prepend(version.UserAgent())
	ao := gophercloud.AuthOptions{
		IdentityEndpoint: r.AuthURL, Username: r.User, Password: r.Password, DomainName: r.Domain,
	}
	if r.Project != "" {
		ao.Scope = &gophercloud.AuthScope{ProjectName: r.Project, DomainName: r.Domain}
	}
	if err := openstack.Authenticate(ctx, pc, ao); err != nil {
		return err
	}
	if r.Project == "" {
		return nil
	}
	_, err = openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{
		Region: r.Region, Availability: gophercloud.Availability(r.Interface)})
	return err
}
