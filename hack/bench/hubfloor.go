package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
)

// hubFloorRequests are the fewest Keystone requests for one application
// credential with its user, project and grant: create the project, create
// the user with its password, grant the role, issue a project-scoped token as
// the user (Keystone creates an application credential only for the user of
// the token, on the token's project, so the user needs the role first), and
// create the application credential with that token.
const hubFloorRequests = 5

// hubFloor runs hubFloorRequests per credential for N credentials,
// sequentially on one connection, directly to Keystone (uncounted by the
// proxy; the admin token is issued once before the clock starts).
func (b *bench) hubFloor(ctx context.Context, tag string) (result, error) {
	res := result{Set: setHub, Runner: runnerFloor, Objects: 4 * b.n, Metrics: map[string]float64{}}
	c, err := b.floorClient(ctx)
	if err != nil {
		return res, err
	}
	roleID, err := roleIDByName(ctx, c, hubRole)
	if err != nil {
		return res, err
	}
	start := time.Now()
	for i := 0; i < b.n; i++ {
		if err := b.floorCredential(ctx, c, roleID, fmt.Sprintf("%s-%d", tag, i)); err != nil {
			return res, fmt.Errorf("credential %d: %w", i, err)
		}
	}
	res.Metrics[mApplyReady] = time.Since(start).Seconds()
	res.Metrics[mBackendApply] = float64(hubFloorRequests) / 4
	res.Metrics[mReqPerCredential] = hubFloorRequests
	return res, nil
}

// floorCredential makes one credential with hubFloorRequests requests on c's
// connection.
func (b *bench) floorCredential(ctx context.Context, c *gophercloud.ServiceClient, roleID, name string) error {
	p, err := projects.Create(ctx, c, projects.CreateOpts{Name: name, DomainID: "default"}).Extract()
	if err != nil {
		return err
	}
	const pw = "bench-floor-password"
	u, err := users.Create(ctx, c, users.CreateOpts{Name: name, DomainID: "default", DefaultProjectID: p.ID, Password: pw}).Extract()
	if err != nil {
		return err
	}
	if err := roles.Assign(ctx, c, roleID, roles.AssignOpts{UserID: u.ID, ProjectID: p.ID}).ExtractErr(); err != nil {
		return err
	}
	tok, err := tokens.Create(ctx, c, &tokens.AuthOptions{UserID: u.ID, Password: pw, Scope: tokens.Scope{ProjectID: p.ID}}).ExtractTokenID()
	if err != nil {
		return err
	}
	_, err = applicationcredentials.Create(ctx, b.tokenClient(c, tok), u.ID, applicationcredentials.CreateOpts{Name: name}).Extract()
	return err
}

// tokenClient is c's identity client, on c's connection, sending token.
func (b *bench) tokenClient(c *gophercloud.ServiceClient, token string) *gophercloud.ServiceClient {
	pc := &gophercloud.ProviderClient{HTTPClient: c.ProviderClient.HTTPClient, IdentityBase: c.ProviderClient.IdentityBase,
		IdentityEndpoint: c.ProviderClient.IdentityEndpoint}
	pc.SetToken(token)
	return &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: c.Endpoint, ResourceBase: c.ResourceBase, Type: c.Type}
}

// roleIDByName looks up a role's id (before the clock starts).
func roleIDByName(ctx context.Context, c *gophercloud.ServiceClient, name string) (string, error) {
	pages, err := roles.List(c, roles.ListOpts{Name: name}).AllPages(ctx)
	if err != nil {
		return "", err
	}
	rs, err := roles.ExtractRoles(pages)
	if err != nil {
		return "", err
	}
	if len(rs) != 1 {
		return "", fmt.Errorf("%d roles named %q", len(rs), name)
	}
	return rs[0].ID, nil
}
