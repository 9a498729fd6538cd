package atrest

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
)

func status(code int) error {
	return gophercloud.ErrUnexpectedResponseCode{Actual: code, Method: "GET", URL: "http://keystone/v3"}
}

func TestUserFinding(t *testing.T) {
	exp := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		u        *users.User
		err      error
		gone     bool
		fp       string
		wantsErr bool
	}{
		{"enabled", &users.User{ID: "u1", Enabled: true}, nil, false, "u1|", false},
		{"password expiry set", &users.User{ID: "u1", Enabled: true, PasswordExpiresAt: exp}, nil, false, "u1|2026-03-01T00:00:00Z", false},
		{"deleted", nil, status(http.StatusNotFound), true, "", false},
		{"disabled", &users.User{ID: "u1"}, nil, true, "", false},
		{"admin refused", nil, status(http.StatusForbidden), false, "", true},
		{"transport", nil, errors.New("dial tcp: refused"), false, "", true},
	} {
		f, err := UserFinding("u1", tc.u, tc.err)
		if (err != nil) != tc.wantsErr || f.Gone != tc.gone || f.Fingerprint != tc.fp || f.Gone != (f.Why != "") {
			t.Errorf("%s: UserFinding = %+v, %v", tc.name, f, err)
		}
	}
}

func TestCredentialFinding(t *testing.T) {
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		ac       *applicationcredentials.ApplicationCredential
		err      error
		gone     bool
		fp       string
		wantsErr bool
	}{
		{"no expiry", &applicationcredentials.ApplicationCredential{ID: "a1"}, nil, false, "a1|", false},
		{"expires later", &applicationcredentials.ApplicationCredential{ID: "a1", ExpiresAt: now.Add(time.Hour)}, nil, false, "a1|2026-01-02T01:00:00Z", false},
		{"expired now", &applicationcredentials.ApplicationCredential{ID: "a1", ExpiresAt: now}, nil, true, "", false},
		{"deleted (or its user)", nil, status(http.StatusNotFound), true, "", false},
		{"unauthorized admin", nil, status(http.StatusUnauthorized), false, "", true},
	} {
		f, err := CredentialFinding("a1", tc.ac, tc.err, now)
		if (err != nil) != tc.wantsErr || f.Gone != tc.gone || f.Fingerprint != tc.fp || f.Gone != (f.Why != "") {
			t.Errorf("%s: CredentialFinding = %+v, %v", tc.name, f, err)
		}
	}
}
