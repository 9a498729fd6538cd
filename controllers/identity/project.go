package identity

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// projectActuator reconciles Project: GET|POST /v3/projects, GET|PATCH
// /v3/projects/{id} (applyNamed).
type projectActuator struct {
	lookups
	specKind[*kv1.Project]
}

var _ actuator[*kv1.Project] = projectActuator{}

func (a projectActuator) apply(ctx context.Context, o *kv1.Project, in applyInput) (outcome, error) {
	s := o.Spec
	did, err := a.domainID(ctx, s.Domain)
	if err != nil {
		return outcome{}, err
	}
	return applyNamed(ctx, namedKind[projects.Project]{
		tracking: tracking[projects.Project]{
			what:     fmt.Sprintf("project %s in domain %s", s.Name, displayDomain(s.Domain)),
			recorded: o.Status.ProjectID, shared: in.shared, unique: true,
			find: func(ctx context.Context) (projects.Project, bool, error) { return a.findProject(ctx, s.Name, did) },
			get: func(ctx context.Context, id string) (projects.Project, bool, error) {
				p, found, err := getFound(projects.Get(ctx, a.c, id).Extract())
				return p, found && p.DomainID == did && !p.IsDomain, err
			},
			create: func(ctx context.Context) (projects.Project, error) {
				return created1(projects.Create(ctx, a.c, projects.CreateOpts{Name: s.Name, DomainID: did,
					Description: s.Description, Enabled: ptr(enabled(s.Enabled))}).Extract())
			},
			id:   func(p projects.Project) string { return p.ID },
			name: func(p projects.Project) string { return p.Name },
		},
		state: func(p projects.Project) state {
			return state{name: p.Name, description: p.Description, enabled: p.Enabled}
		},
		update: func(ctx context.Context, id string, p patch) error {
			_, err := projects.Update(ctx, a.c, id, projects.UpdateOpts{Name: deref(p.name), Description: p.description, Enabled: p.enabled}).Extract()
			return err
		},
		record:  func(id string) { o.Status.ProjectID = id; a.remember("project", did, s.Name, id) },
		renamed: func(old, _ string) { a.forget("project", did, old) },
	}, want{name: s.Name, description: s.Description, enabled: s.Enabled, hasEnabled: true})
}

func (a projectActuator) remove(ctx context.Context, o *kv1.Project) error {
	err := removeTracked(ctx, fmt.Sprintf("project %q", o.Spec.Name), o.Status.ProjectID,
		func(ctx context.Context) (string, bool, error) {
			did, err := a.domainID(ctx, o.Spec.Domain)
			if err != nil {
				return "", false, err
			}
			p, found, err := a.findProject(ctx, o.Spec.Name, did)
			return p.ID, found, err
		},
		func(ctx context.Context, id string) error { return projects.Delete(ctx, a.c, id).ExtractErr() })
	if err == nil {
		a.forgetIn(ctx, "project", o.Spec.Domain, o.Spec.Name)
	}
	return err
}

// changed is the outcome of an apply that wrote msg to Keystone.
func changed(msg string) outcome { return outcome{message: msg, changes: []string{msg}} }
