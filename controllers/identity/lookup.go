package identity

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"

	"github.com/c5c3/orderhub/internal/keystone"
)

// missingError is a dependency absent from Keystone, such as the domain of a
// project. The resource reports it as ReconcileError and is retried until it
// exists.
type missingError struct {
	what string // "domain", "project", ...
	name string // the name (and scope) looked up
}

func (e *missingError) Error() string {
	return fmt.Sprintf("%s %s not found in Keystone; waiting for it to exist", e.what, e.name)
}

// lookups resolves Keystone names to IDs with filtered list queries; Keystone
// does the filtering, and the result is checked for an exact (then
// case-folded) name match, never a pattern.
type lookups struct {
	c *gophercloud.ServiceClient
	// ids memoizes name → ID for dependency resolution (a Project's domain,
	// a RoleAssignment's role, user and project, ...) for idTTL. The kinds
	// themselves always look their own object up; they also record what they
	// created or adopted here, so a burst of applies (a chart's resources
	// arriving together) resolves its dependencies without a request. An
	// object deleted and re-created under the same name within the TTL makes
	// a dependent fail once and succeed on its retry after the entry expires;
	// the forced resync runs long after every entry has expired.
	ids *idCache
}

// idTTL is how long a resolved ID is reused for dependency resolution.
const idTTL = 10 * time.Second

func newLookups(c *gophercloud.ServiceClient) lookups {
	return lookups{c: c, ids: &idCache{m: map[string]cachedID{}}}
}

// idKey is the cache key of an object of kind named name within scope (a
// domain ID, or "" for domains and global roles).
func idKey(kind, scope, name string) string { return kind + "\x00" + scope + "\x00" + name }

// remember records the ID of an object found or created in Keystone.
func (l lookups) remember(kind, scope, name, id string) {
	l.ids.put(idKey(kind, scope, name), id, time.Now().Add(idTTL))
}

// forget drops a cached ID, e.g. after deleting the object.
func (l lookups) forget(kind, scope, name string) { l.ids.del(idKey(kind, scope, name)) }

// forgetIn is forget for an object in the domain named domain.
func (l lookups) forgetIn(ctx context.Context, kind, domain, name string) {
	if did, err := l.domainID(ctx, domain); err == nil {
		l.forget(kind, did, name)
	}
}

func (l lookups) recall(kind, scope, name string) (string, bool) {
	return l.ids.get(idKey(kind, scope, name), time.Now())
}

// domainID resolves a domain name; the default domain is "default" without a request.
func (l lookups) domainID(ctx context.Context, name string) (string, error) {
	if keystone.IsDefaultDomain(name) {
		return keystone.DefaultDomainID, nil
	}
	if id, ok := l.recall("domain", "", name); ok {
		return id, nil
	}
	d, ok, err := l.findDomain(ctx, name)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", &missingError{"domain", fmt.Sprintf("%q", name)}
	}
	l.remember("domain", "", name, d.ID)
	return d.ID, nil
}

type cachedID struct {
	id      string
	expires time.Time
}

// idCache is a small name → ID map with expiry, safe for concurrent use. A
// nil *idCache caches nothing.
type idCache struct {
	mu sync.Mutex
	m  map[string]cachedID
}

func (c *idCache) get(name string, now time.Time) (string, bool) {
	if c == nil {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[name]
	if !ok || now.After(e.expires) {
		delete(c.m, name)
		return "", false
	}
	return e.id, true
}

func (c *idCache) del(name string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, name)
}

func (c *idCache) put(name, id string, expires time.Time) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[name] = cachedID{id: id, expires: expires}
}

func (l lookups) findDomain(ctx context.Context, name string) (domains.Domain, bool, error) {
	pages, err := domains.List(l.c, domains.ListOpts{Name: name}).AllPages(ctx)
	if err != nil {
		return domains.Domain{}, false, fmt.Errorf("list domains named %q: %w", name, err)
	}
	all, err := domains.ExtractDomains(pages)
	if err != nil {
		return domains.Domain{}, false, err
	}
	named := make([]keystone.Named, len(all))
	for i, d := range all {
		named[i] = keystone.Named{ID: d.ID, Name: d.Name}
	}
	n, ok := keystone.PickByName(named, name)
	if !ok {
		return domains.Domain{}, false, nil
	}
	for _, d := range all {
		if d.ID == n.ID {
			return d, true, nil
		}
	}
	return domains.Domain{}, false, nil
}

func (l lookups) findProject(ctx context.Context, name, domainID string) (projects.Project, bool, error) {
	pages, err := projects.List(l.c, projects.ListOpts{Name: name, DomainID: domainID}).AllPages(ctx)
	if err != nil {
		return projects.Project{}, false, fmt.Errorf("list projects named %q: %w", name, err)
	}
	all, err := projects.ExtractProjects(pages)
	if err != nil {
		return projects.Project{}, false, err
	}
	var named []keystone.Named
	for _, p := range all {
		if p.DomainID == domainID && !p.IsDomain {
			named = append(named, keystone.Named{ID: p.ID, Name: p.Name})
		}
	}
	n, ok := keystone.PickByName(named, name)
	for _, p := range all {
		if ok && p.ID == n.ID {
			return p, true, nil
		}
	}
	return projects.Project{}, false, nil
}

// projectID resolves a project by name in a domain given by name.
func (l lookups) projectID(ctx context.Context, name, domain string) (string, error) {
	did, err := l.domainID(ctx, domain)
	if err != nil {
		return "", err
	}
	if id, ok := l.recall("project", did, name); ok {
		return id, nil
	}
	p, ok, err := l.findProject(ctx, name, did)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", &missingError{"project", fmt.Sprintf("%q in domain %q", name, displayDomain(domain))}
	}
	l.remember("project", did, name, p.ID)
	return p.ID, nil
}

func (l lookups) findUser(ctx context.Context, name, domainID string) (users.User, bool, error) {
	pages, err := users.List(l.c, users.ListOpts{Name: name, DomainID: domainID}).AllPages(ctx)
	if err != nil {
		return users.User{}, false, fmt.Errorf("list users named %q: %w", name, err)
	}
	all, err := users.ExtractUsers(pages)
	if err != nil {
		return users.User{}, false, err
	}
	var named []keystone.Named
	for _, u := range all {
		if u.DomainID == domainID {
			named = append(named, keystone.Named{ID: u.ID, Name: u.Name})
		}
	}
	n, ok := keystone.PickByName(named, name)
	for _, u := range all {
		if ok && u.ID == n.ID {
			return u, true, nil
		}
	}
	return users.User{}, false, nil
}

func (l lookups) userID(ctx context.Context, name, domain string) (string, error) {
	did, err := l.domainID(ctx, domain)
	if err != nil {
		return "", err
	}
	if id, ok := l.recall("user", did, name); ok {
		return id, nil
	}
	u, ok, err := l.findUser(ctx, name, did)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", &missingError{"user", fmt.Sprintf("%q in domain %q", name, displayDomain(domain))}
	}
	l.remember("user", did, name, u.ID)
	return u.ID, nil
}

func (l lookups) findGroup(ctx context.Context, name, domainID string) (groups.Group, bool, error) {
	pages, err := groups.List(l.c, groups.ListOpts{Name: name, DomainID: domainID}).AllPages(ctx)
	if err != nil {
		return groups.Group{}, false, fmt.Errorf("list groups named %q: %w", name, err)
	}
	all, err := groups.ExtractGroups(pages)
	if err != nil {
		return groups.Group{}, false, err
	}
	var named []keystone.Named
	for _, g := range all {
		if g.DomainID == domainID {
			named = append(named, keystone.Named{ID: g.ID, Name: g.Name})
		}
	}
	n, ok := keystone.PickByName(named, name)
	for _, g := range all {
		if ok && g.ID == n.ID {
			return g, true, nil
		}
	}
	return groups.Group{}, false, nil
}

func (l lookups) groupID(ctx context.Context, name, domain string) (string, error) {
	did, err := l.domainID(ctx, domain)
	if err != nil {
		return "", err
	}
	if id, ok := l.recall("group", did, name); ok {
		return id, nil
	}
	g, ok, err := l.findGroup(ctx, name, did)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", &missingError{"group", fmt.Sprintf("%q in domain %q", name, displayDomain(domain))}
	}
	l.remember("group", did, name, g.ID)
	return g.ID, nil
}

// findRole looks a role up by name; domainID "" means a global role.
func (l lookups) findRole(ctx context.Context, name, domainID string) (roles.Role, bool, error) {
	pages, err := roles.List(l.c, roles.ListOpts{Name: name, DomainID: domainID}).AllPages(ctx)
	if err != nil {
		return roles.Role{}, false, fmt.Errorf("list roles named %q: %w", name, err)
	}
	all, err := roles.ExtractRoles(pages)
	if err != nil {
		return roles.Role{}, false, err
	}
	var named []keystone.Named
	for _, r := range all {
		if r.DomainID == domainID {
			named = append(named, keystone.Named{ID: r.ID, Name: r.Name})
		}
	}
	n, ok := keystone.PickByName(named, name)
	for _, r := range all {
		if ok && r.ID == n.ID {
			return r, true, nil
		}
	}
	return roles.Role{}, false, nil
}

// roleID resolves a role; domain "" is a global role (not the default domain).
func (l lookups) roleID(ctx context.Context, name, domain string) (string, error) {
	did := ""
	if domain != "" {
		var err error
		if did, err = l.domainID(ctx, domain); err != nil {
			return "", err
		}
	}
	if id, ok := l.recall("role", did, name); ok {
		return id, nil
	}
	r, ok, err := l.findRole(ctx, name, did)
	if err != nil {
		return "", err
	}
	if ok {
		l.remember("role", did, name, r.ID)
	}
	if !ok {
		where := "global"
		if domain != "" {
			where = fmt.Sprintf("in domain %q", domain)
		}
		return "", &missingError{"role", fmt.Sprintf("%q (%s)", name, where)}
	}
	return r.ID, nil
}

// findServices lists the services with exactly this name and type, lowest ID first.
func (l lookups) findServices(ctx context.Context, name, typ string) ([]services.Service, error) {
	pages, err := services.List(l.c, services.ListOpts{Name: name, ServiceType: typ}).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("list services %q of type %q: %w", name, typ, err)
	}
	all, err := services.ExtractServices(pages)
	if err != nil {
		return nil, err
	}
	var out []services.Service
	for _, s := range all {
		if s.Name == name && s.Type == typ {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func displayDomain(d string) string {
	if d == "" {
		return "Default"
	}
	return d
}
