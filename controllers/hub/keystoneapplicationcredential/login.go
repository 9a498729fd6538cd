package keystoneapplicationcredential

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"

	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
)

// ErrLoginRefused: Keystone answered the login with 401; retrying would only
// approach Keystone's lockout, so the hub waits for a new password.
var ErrLoginRefused = errors.New("Keystone refused the user's login")

// keystoneTimeout bounds one Keystone call.
const keystoneTimeout = 20 * time.Second

// loginAsUser returns a provider client holding a project-scoped token of
// the mint cloud's user (password login at m.AuthURL, m.CABundle trusted)
// and a func releasing its connections. Errors wrap ErrLoginRefused on 401.
func loginAsUser(ctx context.Context, m applicationcredential.MintParams) (*gophercloud.ProviderClient, func(), error) {
	pc, tr, err := controlplane.NewProviderClient(m.AuthURL, m.CABundle, keystoneTimeout)
	if err != nil {
		return nil, nil, err
	}
	if m.UserID == "" {
		tr.CloseIdleConnections()
		return nil, nil, errors.New("the user's Keystone id is not known (its K-ORC User reports none)")
	}
	ao := gophercloud.AuthOptions{IdentityEndpoint: m.AuthURL, UserID: m.UserID, Password: string(m.Password)}
	if m.ProjectID != "" {
		ao.Scope = &gophercloud.AuthScope{ProjectID: m.ProjectID}
	} else {
		ao.Scope = &gophercloud.AuthScope{ProjectName: m.ProjectName, DomainName: m.ProjectDomain}
	}
	if err := openstack.Authenticate(ctx, pc, ao); err != nil {
		tr.CloseIdleConnections()
		if gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) {
			return nil, nil, fmt.Errorf("%w: %w", ErrLoginRefused, controlplane.WithoutBody(err))
		}
		return nil, nil, controlplane.WithoutBody(err)
	}
	return pc, tr.CloseIdleConnections, nil
}
