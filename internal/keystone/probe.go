package keystone

import (
	"context"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"

	"github.com/c5c3/orderhub/internal/version"
)

// ProbeResult is the outcome of ProbePassword.
type ProbeResult int

const (
	// ProbeAccepted: Keystone issued a token, so the password is already set.
	ProbeAccepted ProbeResult = iota + 1
	// ProbeRejected: Keystone answered 401. The password differs (or the user
	// is disabled, locked or its password expired); writing it is safe.
	ProbeRejected
)

// ProbePassword asks Keystone for an unscoped token as userID with password,
// as OpenStack-Helm's ks-user.sh does (seed §"User and its password"). It uses
// its own provider client without re-authentication, so a 401 is neither
// retried (which would count twice against lockout_failure_attempts) nor
// masked. It returns ProbeAccepted or ProbeRejected, or an error for every
// other outcome (network failure, 5xx, any other status): the caller must not
// write the password then. The token is discarded.
func (s *Session) ProbePassword(ctx context.Context, userID, password string) (ProbeResult, error) {
	pc, err := openstack.NewClient(s.authURL)
	if err != nil {
		return 0, err
	}
	pc.HTTPClient = s.HTTPClient
	pc.UserAgent.Prepend(version.UserAgent())
	sc, err := openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{})
	if err != nil {
		return 0, err
	}
	err = tokens.Create(ctx, sc, &tokens.AuthOptions{UserID: userID, Password: password}).Err
	return ClassifyProbe(err)
}

// ClassifyProbe maps the error of an unscoped token request to a ProbeResult:
// nil is ProbeAccepted, an HTTP 401 is ProbeRejected, anything else is
// returned as the error.
func ClassifyProbe(err error) (ProbeResult, error) {
	switch {
	case err == nil:
		return ProbeAccepted, nil
	case gophercloud.ResponseCodeIs(err, http.StatusUnauthorized):
		return ProbeRejected, nil
	default:
		return 0, err
	}
}
