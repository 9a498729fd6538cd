package nameprobe

import (
	"context"
	"fmt"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
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
		page, err := projects.List(sc, projects.ListOpts{DomainID: domainID, Name: name}).AllPages(ctx)
		if err != nil {
			return nil, err
		}
		ps, err := projects.ExtractProjects(page)
		ids := make([]string, 0, len(ps))
		for _, p := range ps {
			ids = append(ids, p.ID)
		}
		return ids, err
	})
}

// User implements Prober.
func (k *Keystone) User(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, domainID, name string) korc.ProbeResult {
	return k.probe(ctx, c, cp, "user", func(ctx context.Context, sc *gophercloud.ServiceClient) ([]string, error) {
		page, err := users.List(sc, users.ListOpts{DomainID: domainID, Name: name}).AllPages(ctx)
		if err != nil {
			return nil, err
		}
		us, err := users.ExtractUsers(page)
		ids := make([]string, 0, len(us))
		for _, u := range us {
			ids = append(ids, u.ID)
		}
		return ids, err
	})
}

// probe runs list with the plane's admin session and reads its ids (Verdict).
func (k *Keystone) probe(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane, what string,
	list func(context.Context, *gophercloud.ServiceClient) ([]string, error)) korc.ProbeResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	admin, err := grants.AdminCredentials(ctx, c, cp)
	if err != nil {
		return Verdict(what, nil, err)
	}
	sessions := k.Sessions
	if sessions == nil {
		sessions = &k.own
	}
	sc, err := sessions.Client(ctx, admin)
	if err != nil {
		return Verdict(what, nil, fmt.Errorf("the plane's admin session: %w", controlplane.WithoutBody(err)))
	}
	ids, err := list(ctx, sc)
	return Verdict(what, ids, controlplane.WithoutBody(err))
}
