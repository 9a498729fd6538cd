//go:build integration

package main

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/c5c3/orderhub/internal/testenv"
)

// The hub set's Keystone floor makes hubFloorRequests per credential, one of
// them a hashing login (the user's own), and leaves each user with an
// application credential; Keystone hashes at the -hash-rounds cost
// (testenv.Options.KeystoneHashRounds), as its stored hashes show.
func TestIntegration_HubFloor(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	st, err := testenv.Start(ctx, testenv.Options{Keystone: true, KeystoneHashRounds: 12, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Stop()
	admin := st.Keystone.AdminUser
	proxy, err := testenv.NewCountingProxy(st.Keystone.URL, testenv.CountingProxyOptions{RewriteHost: true,
		Classify: func(r *http.Request, body []byte) string {
			return keystoneLoginClass(r.Method, r.URL.Path, body, admin)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	// The floor talks to the Keystone its stack names: the proxy here, so
	// its requests are counted.
	k := *st.Keystone
	k.URL = proxy.URL + "/v3"
	st.Keystone = &k
	const n = 2
	b := &bench{n: n, stack: st}
	res, err := b.hubFloor(ctx, "floor")
	if err != nil {
		t.Fatal(err)
	}
	// Before the clock: the admin's login and the role lookup.
	if got, want := proxy.Counts().Total(), int64(2+n*hubFloorRequests); got != want {
		t.Errorf("%d Keystone requests, want %d (2 + %d per credential): %v", got, want, hubFloorRequests, proxy.CountsByResource())
	}
	if c := proxy.CountsByClass(); c[loginPassword] != n || c[loginAdminPassword] != 1 || len(c) != 2 {
		t.Errorf("logins %v, want %d user password logins and 1 admin's", c, n)
	}
	if res.Metrics[mReqPerCredential] != hubFloorRequests {
		t.Errorf("row: %v Keystone requests per credential, want %d", res.Metrics[mReqPerCredential], hubFloorRequests)
	}
	rows := sqlite(t, st.Keystone.DBPath, "SELECT substr(p.password_hash, 1, 7) FROM password p JOIN local_user l ON p.local_user_id = l.id "+
		"JOIN application_credential a ON a.user_id = l.user_id WHERE l.name LIKE 'floor-%';")
	if len(rows) != n || rows[0] != "$2b$12$" || rows[1] != "$2b$12$" {
		t.Errorf("users with an application credential and their hash prefixes %q, want %d of $2b$12$", rows, n)
	}
}

func sqlite(t *testing.T, db, query string) []string {
	t.Helper()
	out, err := exec.Command("sqlite3", "-cmd", ".timeout 5000", db, query).CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3: %v: %s", err, out)
	}
	return strings.Fields(string(out))
}
