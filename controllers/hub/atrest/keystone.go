package atrest

import (
	"cmp"
	"context"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/internal/listcache"
)

// Checker is the cheap check: reads with the plane cp's admin credential
// (grants.AdminCredentials, read through c), never a login with the
// order's secret. Errors: the admin credential unreadable or refused, a
// transport failure, an answer other than 200 or 404.
type Checker interface {
	// User reads GET /v3/users/{userID} (UserFinding) of the user in the
	// domain domainID ("": unknown). A user found well MAY be answered from
	// a list of the domain's users at most listcache.Default.MaxAge old;
	// a user gone or disabled MUST be read fresh.
	User(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, domainID, userID string) (Finding, error)
	// Credential reads GET /v3/users/{userID}/application_credentials/{id}
	// (CredentialFinding at now).
	Credential(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, userID, id string, now time.Time) (Finding, error)
}

// OrDefault is period and c, with DefaultLoginPeriod for a period <= 0 and a
// Keystone of the caller's own for a nil c (a reconciler's Options defaults).
func OrDefault(period time.Duration, c Checker) (time.Duration, Checker) {
	if period <= 0 {
		period = DefaultLoginPeriod
	}
	if c == nil {
		c = &Keystone{}
	}
	return period, c
}

// Keystone is the Checker talking to Keystone with gophercloud through the
// plane's cached admin session (Sessions; nil: a private cache). Users holds
// the lists of a plane's domains' users (nil: a private cache with
// listcache.Default).
type Keystone struct {
	Sessions *grants.Sessions
	Users    *listcache.Cache[Finding]
	own      grants.Sessions
	ownUsers listcache.Cache[Finding]
}

var _ Checker = (*Keystone)(nil)

// User implements Checker.
func (k *Keystone) User(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, domainID, userID string) (Finding, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	sc, err := k.admin(ctx, c, cp)
	if err != nil {
		return Finding{}, err
	}
	if domainID != "" {
		lists := cmp.Or(k.Users, &k.ownUsers)
		key := cp.Namespace + "/" + cp.Name + "|" + domainID
		if f, ok := lists.Lookup(ctx, key, userID, func(ctx context.Context) (map[string]Finding, int, error) {
			found, listed, err := domainUsers(ctx, sc, domainID)
			if err != nil {
				logf.FromContext(ctx).Info("the list of a domain's users failed; its checks read each user", "domain", domainID,
					"error", controlplane.WithoutBody(err).Error())
			}
			return found, listed, err
		}); ok {
			return f, nil
		}
	}
	u, err := users.Get(ctx, sc, userID).Extract()
	return UserFinding(userID, u, controlplane.WithoutBody(err))
}

// Credential implements Checker.
func (k *Keystone) Credential(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, userID, id string, now time.Time) (Finding, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	sc, err := k.admin(ctx, c, cp)
	if err != nil {
		return Finding{}, err
	}
	ac, err := applicationcredentials.Get(ctx, sc, userID, id).Extract()
	return CredentialFinding(id, ac, controlplane.WithoutBody(err), now)
}

// domainUsers lists GET /v3/users?domain_id=domainID: the users found well
// (UserFinding) by id, and how many it listed. Errors: the list's.
func domainUsers(ctx context.Context, sc *gophercloud.ServiceClient, domainID string) (map[string]Finding, int, error) {
	pages, err := users.List(sc, users.ListOpts{DomainID: domainID}).AllPages(ctx)
	if err != nil {
		return nil, 0, err
	}
	us, err := users.ExtractUsers(pages)
	if err != nil {
		return nil, 0, err
	}
	out := make(map[string]Finding, len(us))
	for i := range us {
		if f, err := UserFinding(us[i].ID, &us[i], nil); err == nil && !f.Gone {
			out[us[i].ID] = f
		}
	}
	return out, len(us), nil
}

// admin is the plane's admin session (one per admin credential, sessions).
// Errors: the admin credentials' read, or the session's login.
func (k *Keystone) admin(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane) (*gophercloud.ServiceClient, error) {
	if k.Sessions != nil {
		return k.Sessions.Plane(ctx, c, cp)
	}
	return k.own.Plane(ctx, c, cp)
}
