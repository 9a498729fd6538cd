package atrest

import (
	"fmt"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
)

// UserFinding is the cheap check's reading of GET /v3/users/{id} (u, err):
// Gone on 404 or a disabled user (a login would be refused with 401); the
// fingerprint is the id and password_expires_at. Other errors are returned.
func UserFinding(id string, u *users.User, err error) (Finding, error) {
	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return Finding{Gone: true, Why: fmt.Sprintf("the Keystone user %s no longer exists (deleted out of band?)", id)}, nil
	case err != nil:
		return Finding{}, err
	case !u.Enabled:
		return Finding{Gone: true, Why: fmt.Sprintf("the Keystone user %s is disabled", id)}, nil
	}
	return Finding{Fingerprint: u.ID + "|" + stamp(u.PasswordExpiresAt)}, nil
}

// CredentialFinding is the cheap check's reading of GET
// /v3/users/{user_id}/application_credentials/{id} (ac, err) at now: Gone
// on 404 (the credential or its user deleted) or an expires_at not after
// now; the fingerprint is the id and expires_at. Other errors are returned.
func CredentialFinding(id string, ac *applicationcredentials.ApplicationCredential, err error, now time.Time) (Finding, error) {
	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return Finding{Gone: true, Why: fmt.Sprintf("the application credential %s no longer exists in Keystone (deleted out of band?)", id)}, nil
	case err != nil:
		return Finding{}, err
	case !ac.ExpiresAt.IsZero() && !now.Before(ac.ExpiresAt):
		return Finding{Gone: true, Why: fmt.Sprintf("the application credential %s expired at %s", id, stamp(ac.ExpiresAt))}, nil
	}
	return Finding{Fingerprint: ac.ID + "|" + stamp(ac.ExpiresAt)}, nil
}

// stamp is t in RFC 3339 (UTC), "" for the zero time (no expiry).
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
