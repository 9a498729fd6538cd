package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The K-ORC-alone runner of the hub set: per credential the K-ORC v2.6.0
// objects the hub projects (a Project, a User with its passwordRef Secret,
// an ApplicationCredential minted through a clouds.yaml of the user), created
// directly by the bench, no hub; the role is granted with gophercloud as the
// hub does, since K-ORC v2.6.0 has no RoleAssignment kind
// (docs/reference/keystoneroleassignment.md, "How roles are granted").
// Keystone requests go through the counting proxy: K-ORC's and the grants'.

// korcAloneObjects are the three stages of one run: the projects and users
// with their Secrets, then (after the grants) the application credentials
// with their mint clouds and secrets.
type korcAloneObjects struct {
	secrets, identities, creds []*unstructured.Unstructured
}

// korcAloneSet builds the objects of n credentials named <tag>-<i> in
// Keystone; authURL is Keystone's /v3 (the counting proxy).
func (b *bench) korcAloneSet(tag, authURL string) korcAloneObjects {
	var o korcAloneObjects
	cred := map[string]any{"secretName": korcCloudsSecret, "cloudName": "admin"}
	managed := func(c map[string]any, resource map[string]any) map[string]any {
		return map[string]any{"cloudCredentialsRef": c, "managementPolicy": "managed", "resource": resource}
	}
	k := b.stack.Keystone
	for i := 0; i < b.n; i++ {
		name := fmt.Sprintf("%s-%d", tag, i)
		p, u, pw, mint, acs := fmt.Sprintf("p-%d", i), fmt.Sprintf("u-%d", i), fmt.Sprintf("pw-%d", i), fmt.Sprintf("mint-%d", i), fmt.Sprintf("acs-%d", i)
		password := "bench-korc-alone-" + name
		o.secrets = append(o.secrets,
			secretObj(pw, map[string]string{"password": password}),
			secretObj(acs, map[string]string{"value": "bench-ac-secret-" + name}),
			secretObj(mint, map[string]string{"clouds.yaml": fmt.Sprintf(`clouds:
  mint:
    auth:
      auth_url: %s
      username: %s
      user_domain_name: %s
      password: %s
      project_name: %s
      project_domain_name: %s
    region_name: %s
    interface: public
    identity_api_version: 3
`, authURL, name, k.AdminUserDomain, password, name, k.AdminProjectDomain, k.Region)}))
		o.identities = append(o.identities,
			obj(korcAPI, "Project", p, managed(cred, map[string]any{"name": name})),
			obj(korcAPI, "User", u, managed(cred, map[string]any{"name": name, "defaultProjectRef": p, "passwordRef": pw})))
		o.creds = append(o.creds, obj(korcAPI, "ApplicationCredential", fmt.Sprintf("ac-%d", i),
			managed(map[string]any{"secretName": mint, "cloudName": "mint"},
				map[string]any{"name": name, "userRef": u, "unrestricted": false, "secretRef": acs})))
	}
	return o
}

// secretObj is a Secret as an unstructured object.
func secretObj(name string, data map[string]string) *unstructured.Unstructured {
	sd := map[string]any{}
	for k, v := range data {
		sd[k] = v
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": name}, "stringData": sd}}
}

// korcAlone times the K-ORC-alone runner: Secrets, Projects and Users
// applied; once those are Available each user is granted the role
// (gophercloud, through the proxy, applyWorkers at once); then the
// ApplicationCredentials and their Secrets, until all are Available.
func (b *bench) korcAlone(ctx context.Context, tag string) (result, error) {
	res := result{Set: setHub, Runner: runnerKORCAlone, Objects: 4 * b.n, Metrics: map[string]float64{}}
	ns, err := b.newNamespace(ctx, "bench-korc-alone")
	if err != nil {
		return res, err
	}
	k := *b.stack.Keystone
	k.URL = b.keystoneProxy.URL + "/v3"
	if err := b.createSecret(ctx, ns, korcCloudsSecret, map[string]string{"clouds.yaml": k.CloudsYAMLDocument("admin")}); err != nil {
		return res, err
	}
	set := b.korcAloneSet(tag, k.URL)
	all := append(append(append([]*unstructured.Unstructured{}, set.secrets...), set.identities...), set.creds...)
	for _, o := range all {
		o.SetNamespace(ns)
	}
	korcPid, err := b.stack.Pid(procKORC)
	if err != nil {
		return res, err
	}
	b.logf("%s / %s: %d K-ORC objects in namespace %s", setHub, runnerKORCAlone, len(set.identities)+len(set.creds), ns)
	cpu0, _ := cpuSecondsOf(korcPid)
	be0, ber0, bel0 := b.keystoneProxy.Counts(), b.keystoneProxy.CountsByResource(), b.keystoneProxy.CountsByClass()
	start := time.Now()
	if err := b.applyAll(ctx, append(append([]*unstructured.Unstructured{}, set.secrets...), set.identities...)); err != nil {
		return res, err
	}
	available := conditionTrue("Available", false)
	if err := b.waitReady(ctx, ns, set.identities, available); err != nil {
		return res, err
	}
	if err := b.grantAll(ctx, k.URL, ns, set.identities); err != nil {
		return res, fmt.Errorf("grant: %w", err)
	}
	if err := b.applyAll(ctx, set.creds); err != nil {
		return res, err
	}
	if err := b.waitReady(ctx, ns, set.creds, available); err != nil {
		return res, err
	}
	res.Metrics[mApplyReady] = time.Since(start).Seconds()
	reqs := b.keystoneProxy.Counts().Sub(be0).Total()
	res.Metrics[mBackendApply] = float64(reqs) / float64(res.Objects)
	b.logf("%s / %s: Keystone requests while applying: %s", setHub, runnerKORCAlone,
		topWrites(collapseIDs(b.keystoneProxy.CountsByResource().Sub(ber0)), 16))
	b.logf("%s / %s: Keystone logins while applying: %s", setHub, runnerKORCAlone, topWrites(b.keystoneProxy.CountsByClass().Sub(bel0), 8))
	res.Metrics[mReqPerCredential] = float64(reqs) / float64(b.n)
	if cpu1, err := cpuSecondsOf(korcPid); err == nil {
		res.Metrics[mCPU] = cpu1 - cpu0
	}
	res.Note = fmt.Sprintf("%d Project, %d User, %d ApplicationCredential; grants by gophercloud; CPU s is K-ORC's",
		b.n, b.n, b.n)

	start = time.Now()
	if err := b.deleteAll(ctx, ns, set.creds, b.deleteTimeout, b.deleteStall); err != nil {
		res.Note += "; deletion incomplete: " + err.Error()
	} else if err := b.deleteAll(ctx, ns, set.identities, b.deleteTimeout, b.deleteStall); err != nil {
		res.Note += "; deletion incomplete: " + err.Error()
	} else {
		res.Metrics[mDelete] = time.Since(start).Seconds()
	}
	return res, nil
}

// grantAll grants hubRole to every User of identities on its default
// project, reading both ids from the K-ORC objects' status, with one admin
// token.
func (b *bench) grantAll(ctx context.Context, authURL, ns string, identities []*unstructured.Unstructured) error {
	k := b.stack.Keystone
	pc, err := openstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{IdentityEndpoint: authURL,
		Username: k.AdminUser, Password: k.AdminPassword, DomainName: k.AdminUserDomain,
		Scope: &gophercloud.AuthScope{ProjectName: k.AdminProject, DomainName: k.AdminProjectDomain}})
	if err != nil {
		return err
	}
	pc.HTTPClient = http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	c, err := openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{})
	if err != nil {
		return err
	}
	roleID, err := roleIDByName(ctx, c, hubRole)
	if err != nil {
		return err
	}
	items, err := b.list(ctx, ns, identities)
	if err != nil {
		return err
	}
	ids := map[string]string{}
	var users []*unstructured.Unstructured
	for i := range items {
		it := &items[i]
		id, _, _ := unstructured.NestedString(it.Object, "status", "id")
		ids[it.GetKind()+"/"+it.GetName()] = id
		if it.GetKind() == "User" {
			users = append(users, it)
		}
	}
	return parallel(users, func(u *unstructured.Unstructured) error {
		p, _, _ := unstructured.NestedString(u.Object, "spec", "resource", "defaultProjectRef")
		uid, pid := ids["User/"+u.GetName()], ids["Project/"+p]
		if uid == "" || pid == "" {
			return fmt.Errorf("no status.id on User %s or Project %s", u.GetName(), p)
		}
		return retryBusy(ctx, func() error {
			return roles.Assign(ctx, c, roleID, roles.AssignOpts{UserID: uid, ProjectID: pid}).ExtractErr()
		})
	})
}

// busyAttempts and busyFirstWait bound retryBusy: 5 tries, 1 s before the
// second and doubling.
const (
	busyAttempts  = 5
	busyFirstWait = time.Second
)

// retryBusy calls f again while it fails with a busy answer (busy), as a
// controller's requeue would: the stack's Keystone serves one request at a
// time and, at a production hash cost, can leave a connection unaccepted long
// enough for the counting proxy to answer 502. Other errors, and the last
// busy one, are returned.
func retryBusy(ctx context.Context, f func() error) error {
	wait := busyFirstWait
	for attempt := 1; ; attempt++ {
		err := f()
		if err == nil || !busy(err) || attempt == busyAttempts {
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		wait *= 2
	}
}

// busy reports a 502, 503 or 504 answer from Keystone or its proxy.
func busy(err error) bool {
	return gophercloud.ResponseCodeIs(err, http.StatusBadGateway) || gophercloud.ResponseCodeIs(err, http.StatusServiceUnavailable) ||
		gophercloud.ResponseCodeIs(err, http.StatusGatewayTimeout)
}
