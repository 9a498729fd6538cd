package nameprobe

import (
	"context"
	"fmt"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/korc"
)

// timeout bounds one probe (the admin session's login included).
const timeout = 20 * time.Second

// Prober probes a name in a domain with the plane cp's admin credential
// (grants.AdminCredentials, read through c). The answer is a korc.ProbeResult
// (Verdict): ProbeFound with the id, ProbeAbsent, ProbeError for more than
// one match, or a transient ProbePending naming the failure (the admin
// credential unreadable or refused, a transport error, another answer).
type Prober interface {
	// Project lists GET /v3/projects?domain_id=&name=.
	Project(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, domainID, name string) korc.ProbeResult
	// User lists GET /v3/users?domain_id=&name=.
	User(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, domainID, name string) korc.ProbeResult
}

// OrDefault is p, or a Keystone of the caller's own for a nil p (a
// reconciler's Options default).
func OrDefault(p Prober) Prober {
	if p == nil {
		return &Keystone{}
	}
	return p
}

// Keystone is the Prober talking to Keystone with gophercloud through the
// plane's cached admin session (Sessions; nil: a private cache).
type Keystone struct {
	Sessions *grants.Sessions
	own      grants.Sessions
}

var _ Prober = (*Keystone)(nil)

// Project implements Prober.
func (k *Keystone) Project(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, domainID, name string) korc.ProbeResult {
	return k.probe(ctx, c, cp, "project", func(ctx context.Context, sc *gophercloud.ServiceClient) ([]string, error) {
		return ids(ctx, projects.List(sc, projects.ListOpts{DomainID: domainID, Name: name}), projects.ExtractProjects,
			func(p projects.Project) string { return p.ID })
	})
}

// User implements Prober.
func (k *Keystone) User(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, domainID, name string) korc.ProbeResult {
	return k.probe(ctx, c, cp, "user", func(ctx context.Context, sc *gophercloud.ServiceClient) ([]string, error) {
		return ids(ctx, users.List(sc, users.ListOpts{DomainID: domainID, Name: name}), users.ExtractUsers,
			func(u users.User) string { return u.ID })
	})
}

// ids reads every page of pager and returns the id of each item.
func ids[T any](ctx context.Context, pager pagination.Pager, extract func(pagination.Page) ([]T, error), id func(T) string) ([]string, error) {
	page, err := pager.AllPages(ctx)
	if err != nil {
		return nil, err
	}
	items, err := extract(page)
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, id(it))
	}
	return out, err
}

// probe runs list with the plane's admin session and reads its ids (Verdict).
func (k *Keystone) probe(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, what string,
	list func(context.Context, *gophercloud.ServiceClient) ([]string, error)) korc.ProbeResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sessions := k.Sessions
	if sessions == nil {
		sessions = &k.own
	}
	sc, err := sessions.Plane(ctx, c, cp)
	if err != nil {
		return Verdict(what, nil, fmt.Errorf("the plane's admin session: %w", controlplane.WithoutBody(err)))
	}
	ids, err := list(ctx, sc)
	return Verdict(what, ids, controlplane.WithoutBody(err))
}
