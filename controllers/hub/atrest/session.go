package atrest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"

	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
)

// keystoneTimeout bounds one admin authentication or read.
const keystoneTimeout = 20 * time.Second

// sessions keeps one re-authenticating admin identity client per admin
// credential (its digest), so a cheap check reuses the admin token instead
// of a hashing admin login per check; gophercloud renews the token on 401
// (AllowReauth). Our own cache because grants.Keystone authenticates on
// every call. A rotated admin password yields a new digest; the stale
// entry of the same plane key is replaced.
type sessions struct {
	mu sync.Mutex
	m  map[string]session // by plane key: auth URL and admin identity
}

type session struct {
	digest string
	sc     *gophercloud.ServiceClient
}

// client returns the admin identity client for c, authenticating once.
// Errors: no auth URL or password, an unusable CA bundle, a refused login.
func (s *sessions) client(ctx context.Context, c grants.Credentials) (*gophercloud.ServiceClient, error) {
	a := cloudsyaml.AuthOf(c.Cloud)
	if a.AuthURL == "" || a.Password == "" {
		return nil, errors.New("the plane's admin cloud has no auth_url or password")
	}
	key := a.AuthURL + "|" + a.UserID + "|" + a.Username + "|" + a.UserDomainName + "|" + a.UserDomainID
	sum := sha256.Sum256([]byte(key + "|" + a.Password + "|" + a.ProjectID + "|" + a.ProjectName + "|" +
		a.ProjectDomainName + "|" + a.ProjectDomainID + "|" + string(c.CABundle)))
	digest := hex.EncodeToString(sum[:])
	s.mu.Lock()
	e, ok := s.m[key]
	s.mu.Unlock()
	if ok && e.digest == digest {
		return e.sc, nil
	}
	pc, _, err := controlplane.NewProviderClient(a.AuthURL, c.CABundle, keystoneTimeout, "atrest")
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
	sc := &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: gophercloud.NormalizeURL(a.AuthURL), Type: "identity"}
	s.mu.Lock()
	if s.m == nil {
		s.m = map[string]session{}
	}
	s.m[key] = session{digest: digest, sc: sc}
	s.mu.Unlock()
	return sc, nil
}
