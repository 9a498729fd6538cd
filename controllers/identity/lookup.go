package identity

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/c5c3/orderhub/internal/keystone"
	"github.com/c5c3/orderhub/internal/lockedmap"
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
	return lookups{c: c, ids: &idCache{}}
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
	return l.resolveID(ctx, "domain", "", name, fmt.Sprintf("%q", name), func(ctx context.Context) (string, bool, error) {
		d, ok, err := l.findDomain(ctx, name)
		return d.ID, ok, err
	})
}

type cachedID struct {
	id      string
	expires time.Time
}

// idCache is a small name → ID map with expiry, safe for concurrent use. A
// nil *idCache caches nothing.
type idCache struct {
	entries lockedmap.Map[string, cachedID]
}

// get is the ID cached for name, unless it expired before now (it is then
// dropped).
func (c *idCache) get(name string, now time.Time) (string, bool) {
	if c == nil {
		return "", false
	}
	e, ok := c.entries.Get(name, func(e cachedID) bool { return now.After(e.expires) })
	return e.id, ok
}

func (c *idCache) del(name string) {
	if c != nil {
		c.entries.Delete(name)
	}
}

func (c *idCache) put(name, id string, expires time.Time) {
	if c != nil {
		c.entries.Put(name, cachedID{id: id, expires: expires})
	}
}

// findByName is the object named name among those list returns (one
// filtered GET, all pages) that keep accepts; Keystone's filter may return
// others, so the name is matched by keystone.PickByName (exact, then
// case-folded; lowest ID first). what is the plural kind for the error
// ("projects").
func findByName[K any](ctx context.Context, what, name string, list pagination.Pager,
	extract func(pagination.Page) ([]K, error), named func(K) keystone.Named, keep func(K) bool) (K, bool, error) {
	var zero K
	pages, err := list.AllPages(ctx)
	if err != nil {
		return zero, false, fmt.Errorf("list %s named %q: %w", what, name, err)
	}
	all, err := extract(pages)
	if err != nil {
		return zero, false, err
	}
	var candidates []keystone.Named
	for _, o := range all {
		if keep(o) {
			candidates = append(candidates, named(o))
		}
	}
	n, ok := keystone.PickByName(candidates, name)
	for _, o := range all {
		if ok && named(o).ID == n.ID {
			return o, true, nil
		}
	}
	return zero, false, nil
}

// resolveID is the ID of the kind object named name in scope (a domain ID,
// "" for domains and global roles): the cached one, else the one find
// returns, which is then remembered. Not found is a *missingError naming
// missing.
func (l lookups) resolveID(ctx context.Context, kind, scope, name, missing string,
	find func(context.Context) (string, bool, error)) (string, error) {
	if id, ok := l.recall(kind, scope, name); ok {
		return id, nil
	}
	id, ok, err := find(ctx)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", &missingError{kind, missing}
	}
	l.remember(kind, scope, name, id)
	return id, nil
}

// idInDomain is resolveID for an object in the domain named domain, found
// with find (the domain's ID as did) and identified by id.
func idInDomain[K any](ctx context.Context, l lookups, kind, name, domain string,
	find func(ctx context.Context, name, did string) (K, bool, error), id func(K) string) (string, error) {
	did, err := l.domainID(ctx, domain)
	if err != nil {
		return "", err
	}
	return l.resolveID(ctx, kind, did, name, fmt.Sprintf("%q in domain %q", name, displayDomain(domain)),
		func(ctx context.Context) (string, bool, error) {
			k, ok, err := find(ctx, name, did)
			return id(k), ok, err
		})
}

func (l lookups) findDomain(ctx context.Context, name string) (domains.Domain, bool, error) {
	return findByName(ctx, "domains", name, domains.List(l.c, domains.ListOpts{Name: name}), domains.ExtractDomains,
		func(d domains.Domain) keystone.Named { return keystone.Named{ID: d.ID, Name: d.Name} },
		func(domains.Domain) bool { return true })
}

func (l lookups) findProject(ctx context.Context, name, domainID string) (projects.Project, bool, error) {
	return findByName(ctx, "projects", name, projects.List(l.c, projects.ListOpts{Name: name, DomainID: domainID}), projects.ExtractProjects,
		func(p projects.Project) keystone.Named { return keystone.Named{ID: p.ID, Name: p.Name} },
		func(p projects.Project) bool { return p.DomainID == domainID && !p.IsDomain })
}

// projectID resolves a project by name in a domain given by name.
func (l lookups) projectID(ctx context.Context, name, domain string) (string, error) {
	return idInDomain(ctx, l, "project", name, domain, l.findProject, func(p projects.Project) string { return p.ID })
}

func (l lookups) findUser(ctx context.Context, name, domainID string) (users.User, bool, error) {
	return findByName(ctx, "users", name, users.List(l.c, users.ListOpts{Name: name, DomainID: domainID}), users.ExtractUsers,
		func(u users.User) keystone.Named { return keystone.Named{ID: u.ID, Name: u.Name} },
		func(u users.User) bool { return u.DomainID == domainID })
}

func (l lookups) userID(ctx context.Context, name, domain string) (string, error) {
	return idInDomain(ctx, l, "user", name, domain, l.findUser, func(u users.User) string { return u.ID })
}

func (l lookups) findGroup(ctx context.Context, name, domainID string) (groups.Group, bool, error) {
	return findByName(ctx, "groups", name, groups.List(l.c, groups.ListOpts{Name: name, DomainID: domainID}), groups.ExtractGroups,
		func(g groups.Group) keystone.Named { return keystone.Named{ID: g.ID, Name: g.Name} },
		func(g groups.Group) bool { return g.DomainID == domainID })
}

func (l lookups) groupID(ctx context.Context, name, domain string) (string, error) {
	return idInDomain(ctx, l, "group", name, domain, l.findGroup, func(g groups.Group) string { return g.ID })
}

// findRole looks a role up by name; domainID "" means a global role.
func (l lookups) findRole(ctx context.Context, name, domainID string) (roles.Role, bool, error) {
	return findByName(ctx, "roles", name, roles.List(l.c, roles.ListOpts{Name: name, DomainID: domainID}), roles.ExtractRoles,
		func(r roles.Role) keystone.Named { return keystone.Named{ID: r.ID, Name: r.Name} },
		func(r roles.Role) bool { return r.DomainID == domainID })
}

// roleID resolves a role; domain "" is a global role (not the default domain).
func (l lookups) roleID(ctx context.Context, name, domain string) (string, error) {
	did, where := "", "global"
	if domain != "" {
		var err error
		if did, err = l.domainID(ctx, domain); err != nil {
			return "", err
		}
		where = fmt.Sprintf("in domain %q", domain)
	}
	return l.resolveID(ctx, "role", did, name, fmt.Sprintf("%q (%s)", name, where), func(ctx context.Context) (string, bool, error) {
		r, ok, err := l.findRole(ctx, name, did)
		return r.ID, ok, err
	})
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
