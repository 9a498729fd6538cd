package grants

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/internal/lockedmap"
)

// DefaultRefusalHold is how long Sessions answers a refused admin login
// (HTTP 401) from memory instead of asking Keystone again with the same
// credential, so many orders of one plane cannot drive the admin account
// into Keystone's lockout (docs/reference/controlplane.md, "Admin session").
const DefaultRefusalHold = time.Minute

// sessionTimeout bounds one HTTP request of a session's client.
const sessionTimeout = 20 * time.Second

// Sessions keeps one re-authenticating admin identity client per plane, so
// a grant, a revoke or a check at rest reuses the admin token instead of a
// hashing admin login per call; gophercloud renews the token on 401
// (AllowReauth). gophercloud has no such cache across callers. A changed
// admin credential (its digest) replaces the plane's entry at once.
// The zero value is ready; share one value across the hub's kinds.
type Sessions struct {
	// RefusalHold overrides DefaultRefusalHold when positive.
	RefusalHold time.Duration
	// Now is the clock (default time.Now); for tests.
	Now func() time.Time

	m lockedmap.Map[string, session] // by Credentials.Key
}

type session struct {
	digest string
	sc     *gophercloud.ServiceClient
	err    error     // the refused login, when sc is nil
	until  time.Time // err is answered from memory until then
}

// Client returns the admin identity client for c, authenticating once per
// credential. Errors: no auth URL or password, an unusable CA bundle, a
// refused login (gophercloud's 401, also while held), a transport failure.
func (s *Sessions) Client(ctx context.Context, c Credentials) (*gophercloud.ServiceClient, error) {
	a := cloudsyaml.AuthOf(c.Cloud)
	if a.AuthURL == "" || a.Password == "" {
		return nil, errors.New("the plane's admin cloud has no auth_url or password")
	}
	key, digest := c.Key(), c.digest()
	now := s.now()
	e, ok := s.m.Get(key, nil)
	if ok && e.digest == digest {
		if e.sc != nil {
			return e.sc, nil
		}
		if now.Before(e.until) {
			return nil, fmt.Errorf("%w (not asked again before %s)", e.err, e.until.UTC().Format(time.RFC3339))
		}
	}
	sc, err := login(ctx, a, c.CABundle)
	switch {
	case err == nil:
		s.m.Put(key, session{digest: digest, sc: sc})
	case gophercloud.ResponseCodeIs(err, http.StatusUnauthorized):
		s.m.Put(key, session{digest: digest, err: err, until: now.Add(s.hold())})
	}
	return sc, err
}

// Plane returns the admin identity client of plane cp: its admin credential
// read through c (AdminCredentials), then Client. Errors: those of
// AdminCredentials or Client.
func (s *Sessions) Plane(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane) (*gophercloud.ServiceClient, error) {
	admin, err := AdminCredentials(ctx, c, cp)
	if err != nil {
		return nil, err
	}
	return s.Client(ctx, admin)
}

func (s *Sessions) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Sessions) hold() time.Duration {
	if s.RefusalHold > 0 {
		return s.RefusalHold
	}
	return DefaultRefusalHold
}

// Key names the plane c belongs to: Plane when set, else the auth URL and
// the admin identity.
func (c Credentials) Key() string {
	if c.Plane != "" {
		return c.Plane
	}
	a := cloudsyaml.AuthOf(c.Cloud)
	return a.AuthURL + "|" + a.UserID + "|" + a.Username + "|" + a.UserDomainName + "|" + a.UserDomainID
}

// digest is a SHA-256 of everything a login with c depends on.
func (c Credentials) digest() string {
	a := cloudsyaml.AuthOf(c.Cloud)
	sum := sha256.Sum256([]byte(a.AuthURL + "|" + a.UserID + "|" + a.Username + "|" + a.UserDomainName + "|" +
		a.UserDomainID + "|" + a.Password + "|" + a.ProjectID + "|" + a.ProjectName + "|" +
		a.ProjectDomainName + "|" + a.ProjectDomainID + "|" + string(c.CABundle)))
	return hex.EncodeToString(sum[:])
}

// login authenticates a re-authenticating identity v3 client that reaches
// Keystone at the cloud's auth URL, not through the catalog.
func login(ctx context.Context, a cloudsyaml.Auth, ca []byte) (*gophercloud.ServiceClient, error) {
	pc, _, err := controlplane.NewProviderClient(a.AuthURL, ca, sessionTimeout, "grants")
	if err != nil {
		return nil, err
	}
	ao := gophercloud.AuthOptions{IdentityEndpoint: a.AuthURL, Username: a.Username, UserID: a.UserID,
		Password: a.Password, DomainName: a.UserDomainName, DomainID: a.UserDomainID, AllowReauth: true,
		Scope: &gophercloud.AuthScope{ProjectName: a.ProjectName, ProjectID: a.ProjectID,
			DomainName: a.ProjectDomainName, DomainID: a.ProjectDomainID}}
	if err := openstack.Authenticate(ctx, pc, ao); err != nil {
		return nil, controlplane.WithoutBody(err)
	}
	return &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: gophercloud.NormalizeURL(a.AuthURL), Type: "identity"}, nil
}
