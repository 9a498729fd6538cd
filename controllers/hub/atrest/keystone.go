package atrest

import (
	"context"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/grants"
)

// Checker is the cheap check: reads with the plane cp's admin credential
// (grants.AdminCredentials, read through c), never a login with the
// order's secret. Errors: the admin credential unreadable or refused, a
// transport failure, an answer other than 200 or 404.
type Checker interface {
	// User reads GET /v3/users/{userID} (UserFinding).
	User(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, userID string) (Finding, error)
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
// plane's cached admin session (Sessions; nil: a private cache).
type Keystone struct {
	Sessions *grants.Sessions
	own      grants.Sessions
}

var _ Checker = (*Keystone)(nil)

// User implements Checker.
func (k *Keystone) User(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, userID string) (Finding, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	sc, err := k.admin(ctx, c, cp)
	if err != nil {
		return Finding{}, err
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

// admin is the plane's admin session (one per admin credential, sessions).
// Errors: the admin credentials' read, or the session's login.
func (k *Keystone) admin(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane) (*gophercloud.ServiceClient, error) {
	if k.Sessions != nil {
		return k.Sessions.Plane(ctx, c, cp)
	}
	return k.own.Plane(ctx, c, cp)
}
