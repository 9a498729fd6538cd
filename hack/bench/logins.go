package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Login classes of the Keystone counting proxy (keystoneLoginClass). A
// password or application-credential login makes Keystone hash the secret
// (bcrypt at [identity] password_hash_rounds, -hash-rounds); a token
// re-scope does not.
const (
	loginPassword      = "login password"
	loginAdminPassword = "login password (admin)"
	loginAppCred       = "login application_credential"
	loginOther         = "login other"
)

// hashingLogin reports whether a login class hashes a secret.
func hashingLogin(class string) bool {
	return class == loginPassword || class == loginAdminPassword || class == loginAppCred
}

// keystoneLoginClass classifies a request to Keystone: POST /v3/auth/tokens
// by its identity methods (password logins of the user named admin apart),
// "" for anything else
// (https://docs.openstack.org/api-ref/identity/v3/#password-authentication-with-unscoped-authorization).
func keystoneLoginClass(method, path string, body []byte, admin string) string {
	if method != http.MethodPost || !strings.HasSuffix(strings.TrimRight(path, "/"), "/auth/tokens") {
		return ""
	}
	var req struct {
		Auth struct {
			Identity struct {
				Methods  []string `json:"methods"`
				Password struct {
					User struct {
						Name string `json:"name"`
					} `json:"user"`
				} `json:"password"`
			} `json:"identity"`
		} `json:"auth"`
	}
	if json.Unmarshal(body, &req) != nil {
		return loginOther
	}
	id := req.Auth.Identity
	switch {
	case slices.Contains(id.Methods, "application_credential"):
		return loginAppCred
	case slices.Contains(id.Methods, "password"):
		if admin != "" && id.Password.User.Name == admin {
			return loginAdminPassword
		}
		return loginPassword
	}
	return loginOther
}

// perOrderPer scales count events over window among orders to a rate per
// order per period (per hour: period time.Hour); 0 for no orders or window.
func perOrderPer(count int64, orders int, window, period time.Duration) float64 {
	if orders <= 0 || window <= 0 {
		return 0
	}
	return float64(count) / float64(orders) * float64(period) / float64(window)
}
