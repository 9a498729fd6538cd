package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
)

// The logins set: what one hashing login costs Keystone at -hash-rounds,
// the unit of the hub's at-rest cost (docs/performance.md, "The hub set at
// rest"). One user with a project, the grant and an application
// credential is made (at the -hash-rounds cost); then N password logins and
// N application-credential logins are timed, sequentially on one
// connection, and the Keystone process's CPU seconds per login read from
// /proc. Only Keystone runs.
func (b *bench) runLoginCost(ctx context.Context, rep int) ([]result, error) {
	tag := fmt.Sprintf("r%dn%d%s-login", rep, b.n, b.runID)
	c, err := b.floorClient(ctx)
	if err != nil {
		return nil, err
	}
	roleID, err := roleIDByName(ctx, c, hubRole)
	if err != nil {
		return nil, err
	}
	const pw = "bench-login-password"
	p, err := projects.Create(ctx, c, projects.CreateOpts{Name: tag, DomainID: "default"}).Extract()
	if err != nil {
		return nil, err
	}
	u, err := users.Create(ctx, c, users.CreateOpts{Name: tag, DomainID: "default", DefaultProjectID: p.ID, Password: pw}).Extract()
	if err != nil {
		return nil, err
	}
	if err := roles.Assign(ctx, c, roleID, roles.AssignOpts{UserID: u.ID, ProjectID: p.ID}).ExtractErr(); err != nil {
		return nil, err
	}
	passwordLogin := &tokens.AuthOptions{UserID: u.ID, Password: pw, Scope: tokens.Scope{ProjectID: p.ID}}
	tok, err := tokens.Create(ctx, c, passwordLogin).ExtractTokenID()
	if err != nil {
		return nil, err
	}
	ac, err := applicationcredentials.Create(ctx, b.tokenClient(c, tok), u.ID, applicationcredentials.CreateOpts{Name: tag}).Extract()
	if err != nil {
		return nil, err
	}
	pid, err := b.stack.Pid("keystone")
	if err != nil {
		return nil, err
	}
	var out []result
	for _, l := range []struct {
		runner string
		opts   *tokens.AuthOptions
	}{
		{runnerPasswordLogin, passwordLogin},
		{runnerAppCredLogin, &tokens.AuthOptions{ApplicationCredentialID: ac.ID, ApplicationCredentialSecret: ac.Secret}},
	} {
		cpu0, err := cpuSecondsOf(pid)
		if err != nil {
			return out, err
		}
		start := time.Now()
		for i := 0; i < b.n; i++ {
			if err := tokens.Create(ctx, c, l.opts).Err; err != nil {
				return out, fmt.Errorf("%s %d: %w", l.runner, i, err)
			}
		}
		wall := time.Since(start)
		cpu1, err := cpuSecondsOf(pid)
		if err != nil {
			return out, err
		}
		r := result{Set: setLogins, Runner: l.runner, Objects: b.n, Metrics: map[string]float64{
			mApplyReady: wall.Seconds(), mKeystoneCPULogin: (cpu1 - cpu0) / float64(b.n)}}
		r.Note = fmt.Sprintf("Keystone CPU %.3f s per login", r.Metrics[mKeystoneCPULogin])
		if b.hashRounds > 0 {
			r.Note += fmt.Sprintf(", password_hash_rounds %d", b.hashRounds)
		}
		b.logf("%s / %s: %s", r.Set, r.Runner, r.summary())
		out = append(out, r)
	}
	return out, nil
}
