package identity

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// projectActuator reconciles Project: GET|POST /v3/projects, PATCH /v3/projects/{id}.
type projectActuator struct{ lookups }

var _ actuator[*kv1.Project] = projectActuator{}

func (projectActuator) kind() string            { return "Project" }
func (projectActuator) spec(o *kv1.Project) any { return o.Spec }
func (projectActuator) inputs(context.Context, client.Reader, *kv1.Project) (map[string]string, error) {
	return nil, nil
}

// projectUpdate is the PATCH that makes observed match spec; ok is false when
// nothing differs. An empty spec description leaves Keystone's as it is.
func projectUpdate(spec kv1.ProjectSpec, observed projects.Project) (projects.UpdateOpts, bool) {
	var u projects.UpdateOpts
	ok := false
	if spec.Description != "" && spec.Description != observed.Description {
		u.Description, ok = ptr(spec.Description), true
	}
	if want := enabled(spec.Enabled); want != observed.Enabled {
		u.Enabled, ok = ptr(want), true
	}
	return u, ok
}

func (a projectActuator) apply(ctx context.Context, o *kv1.Project, _ applyInput) (outcome, error) {
	did, err := a.domainID(ctx, o.Spec.Domain)
	if err != nil {
		return outcome{}, err
	}
	where := fmt.Sprintf("project %s in domain %s", o.Spec.Name, displayDomain(o.Spec.Domain))
	p, created, err := ensureUnique(ctx, where,
		func(ctx context.Context) (projects.Project, bool, error) { return a.findProject(ctx, o.Spec.Name, did) },
		func(ctx context.Context) (projects.Project, error) {
			r, err := projects.Create(ctx, a.c, projects.CreateOpts{Name: o.Spec.Name, DomainID: did,
				Description: o.Spec.Description, Enabled: ptr(enabled(o.Spec.Enabled))}).Extract()
			if r == nil {
				return projects.Project{}, err
			}
			return *r, err
		})
	if err != nil {
		return outcome{}, err
	}
	a.remember("project", did, o.Spec.Name, p.ID)
	if created {
		o.Status.ProjectID = p.ID
		return changed("created " + where), nil
	}
	o.Status.ProjectID = p.ID
	if u, ok := projectUpdate(o.Spec, p); ok {
		if _, err := projects.Update(ctx, a.c, p.ID, u).Extract(); err != nil {
			return outcome{}, fmt.Errorf("update %s: %w", where, err)
		}
		return changed(updated(where, fieldsOf(u.ToProjectUpdateMap()))), nil
	}
	return outcome{message: where + " is up to date"}, nil
}

func (a projectActuator) remove(ctx context.Context, o *kv1.Project) error {
	id := o.Status.ProjectID
	if id == "" {
		did, err := a.domainID(ctx, o.Spec.Domain)
		if err != nil {
			return err
		}
		p, found, err := a.findProject(ctx, o.Spec.Name, did)
		if err != nil || !found {
			return err
		}
		id = p.ID
	}
	if err := projects.Delete(ctx, a.c, id).ExtractErr(); err != nil && !keystone.IsNotFound(err) {
		return fmt.Errorf("delete project %q: %w", o.Spec.Name, err)
	}
	a.forgetIn(ctx, "project", o.Spec.Domain, o.Spec.Name)
	return nil
}

// changed is the outcome of an apply that wrote msg to Keystone.
func changed(msg string) outcome { return outcome{message: msg, changes: []string{msg}} }
