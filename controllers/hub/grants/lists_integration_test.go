//go:build integration

package grants_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"

	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/internal/listcache"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestHas_ListAnswersPresentForMaxAge: with Lists, Has reads each pair until
// the demand calls for a list of the role's assignments; then one list
// answers present pairs for MaxAge, a pair it lacks is read from Keystone;
// a grant revoked out of band reads as held for at most MaxAge, then false
// (docs/reference/keystoneroleassignment.md, "How roles are granted").
func TestHas_ListAnswersPresentForMaxAge(t *testing.T) {
	st := testenv.ForTest(t, testenv.Options{Keystone: true})
	var lists, pairs atomic.Int64
	proxy, err := testenv.NewCountingProxy(st.Keystone.URL, testenv.CountingProxyOptions{
		RewriteHost: true,
		Refuse: func(r *http.Request) (int, string) {
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/role_assignments") {
				if r.URL.Query().Has("user.id") {
					pairs.Add(1)
				} else if r.URL.Query().Has("role.id") {
					lists.Add(1)
				}
			}
			return 0, ""
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	doc := strings.Replace(st.Keystone.CloudsYAMLDocument("admin"), strings.TrimSuffix(st.Keystone.URL, "/v3"), proxy.URL, 1)
	cloud, err := cloudsyaml.ParseCloud([]byte(doc), "admin")
	if err != nil {
		t.Fatal(err)
	}
	creds := grants.Credentials{Cloud: cloud, Plane: "ns/plane"}
	ctx := context.Background()
	sessions := &grants.Sessions{}
	sc, err := sessions.Client(ctx, creds)
	if err != nil {
		t.Fatal(err)
	}
	role, err := roles.Create(ctx, sc, roles.CreateOpts{Name: "lists-role"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	project, err := projects.Create(ctx, sc, projects.CreateOpts{Name: "lists-project", DomainID: "default"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range []string{"lists-a", "lists-b"} {
		u, err := users.Create(ctx, sc, users.CreateOpts{Name: n, DomainID: "default"}).Extract()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, u.ID)
	}
	a, b := ids[0], ids[1]
	if err := roles.Assign(ctx, sc, role.ID, roles.AssignOpts{UserID: a, ProjectID: project.ID}).ExtractErr(); err != nil {
		t.Fatal(err)
	}

	clock := time.Date(2026, 12, 6, 16, 0, 0, 0, time.UTC)
	age := 30 * time.Second
	k := grants.Keystone{Sessions: sessions, Lists: &listcache.Cache[struct{}]{
		Policy: listcache.Policy{MaxAge: age, MinDemand: 2, PerLookup: 10}, Now: func() time.Time { return clock }}}
	has := func(user string, want bool) {
		t.Helper()
		got, err := k.Has(ctx, creds, user, project.ID, role.ID)
		if err != nil || got != want {
			t.Fatalf("Has(%s) = %v, %v; want %v", user, got, err, want)
		}
	}
	counts := func(wantLists, wantPairs int64) {
		t.Helper()
		if l, p := lists.Load(), pairs.Load(); l != wantLists || p != wantPairs {
			t.Fatalf("Keystone saw %d role lists and %d pair reads, want %d and %d", l, p, wantLists, wantPairs)
		}
	}

	has(a, true)
	counts(0, 1) // no demand yet: the pair is read
	has(a, true) // the second lookup (MinDemand 2) reads the list
	counts(1, 1)
	has(b, false) // not in the list: read
	counts(1, 2)

	if err := roles.Unassign(ctx, sc, role.ID, roles.UnassignOpts{UserID: a, ProjectID: project.ID}).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	has(a, true) // the list is at most MaxAge old
	counts(1, 2)
	clock = clock.Add(age + time.Second)
	has(a, false) // a new list lacks it, the pair read says so
	counts(2, 3)
}
