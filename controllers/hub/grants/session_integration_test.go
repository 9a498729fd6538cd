//go:build integration

package grants_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"

	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestSessions_OneAdminLoginPerPlane: role reads through a shared Sessions
// log in as admin once, not once per call; a refused admin password is
// asked once per hold, which Keystone's own failed-login counter shows;
// a corrected Secret logs in at once.
func TestSessions_OneAdminLoginPerPlane(t *testing.T) {
	st := testenv.ForTest(t, testenv.Options{Keystone: true})
	var logins atomic.Int64
	proxy, err := testenv.NewCountingProxy(st.Keystone.URL, testenv.CountingProxyOptions{
		RewriteHost: true,
		Refuse: func(r *http.Request) (int, string) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/auth/tokens") {
				logins.Add(1)
			}
			return 0, ""
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	creds := func(password string) grants.Credentials {
		doc := strings.Replace(st.Keystone.CloudsYAMLDocument("admin"), st.Keystone.AdminPassword, password, 1)
		doc = strings.Replace(doc, strings.TrimSuffix(st.Keystone.URL, "/v3"), proxy.URL, 1)
		c, err := cloudsyaml.ParseCloud([]byte(doc), "admin")
		if err != nil {
			t.Fatal(err)
		}
		return grants.Credentials{Cloud: c, Plane: "ns/plane"}
	}
	ctx := context.Background()
	clock := time.Date(2026, 12, 5, 6, 0, 0, 0, time.UTC)
	s := &grants.Sessions{Now: func() time.Time { return clock }}
	k := grants.Keystone{Sessions: s}

	good := creds(st.Keystone.AdminPassword)
	sc, err := s.Client(ctx, good)
	if err != nil {
		t.Fatalf("admin login: %v", err)
	}
	pages, err := users.List(sc, users.ListOpts{Name: st.Keystone.AdminUser}).AllPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	us, err := users.ExtractUsers(pages)
	if err != nil || len(us) != 1 {
		t.Fatalf("admin user: %v %v", us, err)
	}
	adminID := us[0].ID
	for range 5 {
		if _, err := k.Granted(ctx, good, adminID, "no-such-project"); err != nil {
			t.Fatalf("Granted: %v", err)
		}
	}
	if n := logins.Load(); n != 1 {
		t.Fatalf("admin logins for one session and five role reads: %d, want 1", n)
	}

	bad := creds("not-the-admin-password")
	for range 3 {
		_, err := k.Granted(ctx, bad, adminID, "no-such-project")
		if !gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) {
			t.Fatalf("Granted with a wrong admin password: %v, want a 401", err)
		}
	}
	if n := logins.Load(); n != 2 {
		t.Fatalf("admin logins after three calls with a refused password: %d, want 2 (one refused, then held)", n)
	}
	if n, err := st.Keystone.FailedAuthCount(adminID); err != nil || n != 1 {
		t.Fatalf("Keystone's failed-login count of the admin: %d (%v), want 1", n, err)
	}
	clock = clock.Add(grants.DefaultRefusalHold)
	if _, err := k.Granted(ctx, bad, adminID, "no-such-project"); !gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) {
		t.Fatalf("after the hold: %v, want a 401", err)
	}
	if n := logins.Load(); n != 3 {
		t.Fatalf("admin logins after the hold ended: %d, want 3", n)
	}
	if _, err := k.Granted(ctx, good, adminID, "no-such-project"); err != nil {
		t.Fatalf("a corrected admin Secret during the hold: %v", err)
	}
	if n := logins.Load(); n != 4 {
		t.Fatalf("admin logins after the Secret was corrected: %d, want 4", n)
	}
}
