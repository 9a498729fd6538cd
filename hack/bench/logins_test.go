package main

import (
	"math"
	"testing"
	"time"
)

// Password and application-credential logins hash a secret in Keystone; a
// token re-scope and every other request do not; the admin's password
// logins are told apart.
func TestKeystoneLoginClass(t *testing.T) {
	const tokens = "/v3/auth/tokens"
	for _, c := range []struct {
		name, method, path, body, want string
		hashing                        bool
	}{
		{"user password", "POST", tokens, `{"auth":{"identity":{"methods":["password"],"password":{"user":{"id":"u1","password":"x"}}}}}`, loginPassword, true},
		{"admin password", "POST", tokens, `{"auth":{"identity":{"methods":["password"],"password":{"user":{"name":"admin","domain":{"name":"Default"},"password":"x"}}}}}`, loginAdminPassword, true},
		{"application credential", "POST", tokens + "/", `{"auth":{"identity":{"methods":["application_credential"],"application_credential":{"id":"a","secret":"s"}}}}`, loginAppCred, true},
		{"token rescope", "POST", tokens, `{"auth":{"identity":{"methods":["token"],"token":{"id":"t"}}}}`, loginOther, false},
		{"unreadable body", "POST", tokens, `{`, loginOther, false},
		{"token validation", "GET", tokens, "", "", false},
		{"user create", "POST", "/v3/users", `{"user":{"password":"x"}}`, "", false},
	} {
		got := keystoneLoginClass(c.method, c.path, []byte(c.body), "admin")
		if got != c.want || hashingLogin(got) != c.hashing {
			t.Errorf("%s: class %q (hashing %v), want %q (%v)", c.name, got, hashingLogin(got), c.want, c.hashing)
		}
	}
}

// Counts over a window scale to a rate per order per period.
func TestPerOrderPer(t *testing.T) {
	for _, c := range []struct {
		count          int64
		orders         int
		window, period time.Duration
		want           float64
	}{
		{count: 200, orders: 200, window: 10 * time.Minute, period: time.Hour, want: 6},
		{count: 2, orders: 200, window: 10 * time.Minute, period: 24 * time.Hour, want: 1.44},
		{count: 5, orders: 0, window: time.Minute, period: time.Hour, want: 0},
		{count: 5, orders: 1, window: 0, period: time.Hour, want: 0},
	} {
		if got := perOrderPer(c.count, c.orders, c.window, c.period); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("perOrderPer(%d, %d, %s, %s) = %v, want %v", c.count, c.orders, c.window, c.period, got, c.want)
		}
	}
}
