package keystoneapplicationcredential

import (
	"context"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"

	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
)

// EventPreviousRevoked (Warning): the hub deleted a superseded credential
// K-ORC had released while Keystone still held it.
const EventPreviousRevoked = "PreviousCredentialRevoked"

// EventPreviousUnconfirmed (Warning): a released superseded credential was
// forgotten unconfirmed so the live credential's rotation can start.
const EventPreviousUnconfirmed = "PreviousCredentialUnconfirmed"

// RevokeRequest names a superseded credential and its owner's mint cloud.
type RevokeRequest struct {
	Mint         applicationcredential.MintParams
	CredentialID string
}

// Revoker deletes an application credential as its owner: existed on 204,
// false on 404; err wraps ErrLoginRefused on a refused login. The hub needs it
// because K-ORC v2.6.0 may release a credential Keystone still holds
// (github.com/k-orc/openstack-resource-controller
// internal/osclients/applicationcredential.go, GetApplicationCredential).
type Revoker func(ctx context.Context, r RevokeRequest) (existed bool, err error)

// KeystoneRevoke is the default Revoker: a project-scoped token as the user at
// the plane's auth URL, then DELETE
// /v3/users/{user_id}/application_credentials/{id} there.
func KeystoneRevoke(ctx context.Context, r RevokeRequest) (bool, error) {
	m := r.Mint
	ctx, cancel := context.WithTimeout(ctx, 2*keystoneTimeout)
	defer cancel()
	pc, release, err := loginAsUser(ctx, m)
	if err != nil {
		return false, err
	}
	defer release()
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
