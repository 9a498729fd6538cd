//go:build integration

package identity

import (
	"context"
	"fmt"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"

	"github.com/c5c3/orderhub/internal/keystone"
)

// The Heat sample (config/samples/identity/heat/), applied as it is, leaves in
// Keystone what Heat's ks-user-domain job creates: the domain heat, the user
// heat_domain_admin in it logging in with the Secret's password, and the admin
// role granted to that user on the domain (docs/identity.md, "Samples").
func TestHeatDomainUserSample(t *testing.T) {
	ctx := context.Background()
	objs := loadSamplesIn(t, "config/samples/identity/heat")
	if len(objs) != 4 {
		t.Fatalf("%d objects in the Heat sample, want a Secret, a Domain, a User and a RoleAssignment", len(objs))
	}
	for _, o := range objs {
		o.SetNamespace(testNS)
	}
	mustCreate(t, objs...)

	var domainID, userID string
	eventually(t, "the domain heat in Keystone", func() (bool, string) {
		ds := listDomains(t, domains.ListOpts{Name: "heat"})
		if len(ds) != 1 {
			return false, fmt.Sprintf("%d domains named heat", len(ds))
		}
		domainID = ds[0].ID
		return true, ""
	})
	eventually(t, "the user heat_domain_admin in the domain heat", func() (bool, string) {
		us := listUsers(t, users.ListOpts{Name: "heat_domain_admin", DomainID: domainID})
		if len(us) != 1 {
			return false, fmt.Sprintf("%d users named heat_domain_admin in domain %s", len(us), domainID)
		}
		userID = us[0].ID
		return true, ""
	})
	adminRole, err := roleNamed(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "admin granted to heat_domain_admin on the domain heat", func() (bool, string) {
		err := roles.Validate(ctx, admin, adminRole, roles.ValidateOpts{UserID: userID, DomainID: domainID}).ExtractErr()
		if err != nil && !keystone.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil, fmt.Sprint(err)
	})
	if err := tryLogin(userID, "example-heat-domain-admin-password"); err != nil {
		t.Errorf("login as heat_domain_admin with the sample Secret's password: %v", err)
	}
}

func listDomains(t *testing.T, opts domains.ListOpts) []domains.Domain {
	t.Helper()
	pages, err := domains.List(admin, opts).AllPages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ds, err := domains.ExtractDomains(pages)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func listUsers(t *testing.T, opts users.ListOpts) []users.User {
	t.Helper()
	pages, err := users.List(admin, opts).AllPages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	us, err := users.ExtractUsers(pages)
	if err != nil {
		t.Fatal(err)
	}
	return us
}

// roleNamed returns the ID of the global role name.
func roleNamed(ctx context.Context, name string) (string, error) {
	pages, err := roles.List(admin, roles.ListOpts{Name: name}).AllPages(ctx)
	if err != nil {
		return "", err
	}
	rs, err := roles.ExtractRoles(pages)
	if err != nil {
		return "", err
	}
	for _, r := range rs {
		if r.Name == name && r.DomainID == "" {
			return r.ID, nil
		}
	}
	return "", fmt.Errorf("no global role %q", name)
}
