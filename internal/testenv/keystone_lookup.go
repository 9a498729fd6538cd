package testenv

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/pagination"
)

// Keystone lookups for tests: what a test reads back from the stack's
// Keystone, directly through an admin identity client c (Stack.AdminIdentity),
// to see what the controllers did. Each lists every page of one Keystone v3
// collection (https://docs.openstack.org/api-ref/identity/v3/) with
// gophercloud; the functions taking tb fail it on a request or decoding
// error, KeystoneAll and KeystoneApplicationCredentials return it (for a poll
// that retries).

// KeystoneAll lists every page of pager and decodes its rows with extract
// (a gophercloud Extract function such as users.ExtractUsers).
func KeystoneAll[T any](ctx context.Context, pager pagination.Pager, extract func(pagination.Page) ([]T, error)) ([]T, error) {
	pages, err := pager.AllPages(ctx)
	if err != nil {
		return nil, err
	}
	return extract(pages)
}

// KeystoneList is KeystoneAll failing tb on an error, for example
// KeystoneList(t, users.List(c, users.ListOpts{Name: "nova"}), users.ExtractUsers).
func KeystoneList[T any](tb testing.TB, pager pagination.Pager, extract func(pagination.Page) ([]T, error)) []T {
	tb.Helper()
	rows, err := KeystoneAll(context.Background(), pager, extract)
	if err != nil {
		tb.Fatal(err)
	}
	return rows
}

// First is a pointer to the first of rows, nil when there is none.
func First[T any](rows []T) *T {
	if len(rows) == 0 {
		return nil
	}
	return &rows[0]
}

// KeystoneDomainID is the id of the domain name; it fails tb unless exactly
// one domain has that name.
func KeystoneDomainID(tb testing.TB, c *gophercloud.ServiceClient, name string) string {
	tb.Helper()
	ds := KeystoneList(tb, domains.List(c, domains.ListOpts{Name: name}), domains.ExtractDomains)
	if len(ds) != 1 {
		tb.Fatalf("domain %s: %v", name, ds)
	}
	return ds[0].ID
}

// KeystoneRoleID is the id of the role name, which must exist.
func KeystoneRoleID(tb testing.TB, c *gophercloud.ServiceClient, name string) string {
	tb.Helper()
	rs := KeystoneList(tb, roles.List(c, roles.ListOpts{Name: name}), roles.ExtractRoles)
	if len(rs) == 0 {
		tb.Fatalf("role %s: none found", name)
	}
	return rs[0].ID
}

// KeystoneEnsureRole is the id of the role name, created first unless it
// exists (roles are global in Keystone).
func KeystoneEnsureRole(tb testing.TB, c *gophercloud.ServiceClient, name string) string {
	tb.Helper()
	if r := First(KeystoneList(tb, roles.List(c, roles.ListOpts{Name: name}), roles.ExtractRoles)); r != nil {
		return r.ID
	}
	r, err := roles.Create(context.Background(), c, roles.CreateOpts{Name: name}).Extract()
	if err != nil {
		tb.Fatal(err)
	}
	return r.ID
}

// KeystoneAssignedRoles is the set of role ids Keystone assigns directly to
// userID on projectID (GET /v3/role_assignments?user.id=…&scope.project.id=…).
func KeystoneAssignedRoles(tb testing.TB, c *gophercloud.ServiceClient, userID, projectID string) map[string]bool {
	tb.Helper()
	as := KeystoneList(tb, roles.ListAssignments(c, roles.ListAssignmentsOpts{UserID: userID, ScopeProjectID: projectID}),
		roles.ExtractRoleAssignments)
	out := map[string]bool{}
	for _, a := range as {
		out[a.Role.ID] = true
	}
	return out
}

// KeystoneApplicationCredentials lists userID's application credentials
// (GET /v3/users/{user_id}/application_credentials; the admin may list them).
// It returns the error, for a poll that retries.
func KeystoneApplicationCredentials(ctx context.Context, c *gophercloud.ServiceClient, userID string) ([]applicationcredentials.ApplicationCredential, error) {
	return KeystoneAll(ctx, applicationcredentials.List(c, userID, applicationcredentials.ListOpts{}),
		applicationcredentials.ExtractApplicationCredentials)
}
