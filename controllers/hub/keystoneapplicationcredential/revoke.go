package keystoneapplicationcredential

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"

	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
)

// EventPreviousRevoked (Warning): K-ORC released a superseded generation's
// ApplicationCredential while Keystone still held the credential, and the
// hub deleted it from Keystone itself.
const EventPreviousRevoked = "PreviousCredentialRevoked"

// EventPreviousUnconfirmed (Warning): the hub could not confirm that a
// superseded credential K-ORC released is gone from Keystone before the live
// credential came within the grace period of its expiry, and forgot it on
// K-ORC's word so that the live credential's rotation can start.
const EventPreviousUnconfirmed = "PreviousCredentialUnconfirmed"

// RevokeRequest names a superseded application credential and how to reach
// Keystone as its owner: the mint cloud's user, password, project and
// catalog entry (applicationcredential.MintParams), and the credential id.
type RevokeRequest struct {
	Mint         applicationcredential.MintParams
	CredentialID string
}

// Revoker deletes an application credential from Keystone as its owner.
// existed is true when Keystone held it and deleted it now (204), false
// when it answered 404 (already gone); err is any other failure (a
// transport error, another status), with no response body, and wraps
// ErrLoginRefused when Keystone refused the user's login itself.
//
// The hub confirms this itself before it forgets a superseded credential
// (clears status.previousCredentialID): K-ORC v2.6.0 deletes an
// ApplicationCredential only after a GET by id, and that GET returns
// NotFound for any failure, a Keystone restart included (it swallows the
// error of each attempt; github.com/k-orc/openstack-resource-controller
// internal/osclients/applicationcredential.go, GetApplicationCredential),
// so K-ORC can release its finalizer while Keystone still holds the
// credential (docs/reference/keystoneapplicationcredential.md, "Rotation").
type Revoker func(ctx context.Context, r RevokeRequest) (existed bool, err error)

// ErrLoginRefused is a Revoker's error when Keystone answered the user's
// login with 401: the password the hub holds is not (or no longer) the
// user's. Trying it again would only add failed logins toward Keystone's
// lockout (lockout_failure_attempts), so the hub waits for the user's next
// password generation.
var ErrLoginRefused = errors.New("Keystone refused the user's login")

// keystoneTimeout bounds one Keystone call of KeystoneProbe and
// KeystoneRevoke (the token request and the delete each).
const keystoneTimeout = 20 * time.Second

// KeystoneRevoke is the default Revoker: a token request as the credential's
// user (its id and password, scoped to the project the credential belongs
// to) at the plane's auth URL, then DELETE
// /v3/users/{user_id}/application_credentials/{id} at that same identity
// endpoint (the one the hub is known to reach; K-ORC's is the catalog's).
func KeystoneRevoke(ctx context.Context, r RevokeRequest) (bool, error) {
	m := r.Mint
	ctx, cancel := context.WithTimeout(ctx, 2*keystoneTimeout)
	defer cancel()
	pc, tr, err := controlplane.NewProviderClient(m.AuthURL, m.CABundle, keystoneTimeout)
	if err != nil {
		return false, err
	}
	defer tr.CloseIdleConnections()
	if m.UserID == "" {
		return false, errors.New("the user's Keystone id is not known (its K-ORC User reports none)")
	}
	ao := gophercloud.AuthOptions{IdentityEndpoint: m.AuthURL, UserID: m.UserID, Password: string(m.Password)}
	if m.ProjectID != "" {
		ao.Scope = &gophercloud.AuthScope{ProjectID: m.ProjectID}
	} else {
		ao.Scope = &gophercloud.AuthScope{ProjectName: m.ProjectName, DomainName: m.ProjectDomain}
	}
	if err := openstack.Authenticate(ctx, pc, ao); err != nil {
		if gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) {
			return false, fmt.Errorf("%w: %w", ErrLoginRefused, controlplane.WithoutBody(err))
		}
		return false, controlplane.WithoutBody(err)
	}
	// Empty EndpointOpts: the identity endpoint is the auth URL's, not the
	// catalog's.
	ic, err := openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{})
	if err != nil {
		return false, err
	}
	err = applicationcredentials.Delete(ctx, ic, m.UserID, r.CredentialID).ExtractErr()
	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return false, nil
	case err != nil:
		return false, controlplane.WithoutBody(err)
	}
	return true, nil
}
