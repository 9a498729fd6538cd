package identity

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// domainActuator reconciles Domain: GET|POST /v3/domains, GET|PATCH
// /v3/domains/{id} (applyNamed).
type domainActuator struct {
	lookups
	specKind[*kv1.Domain]
}

var _ actuator[*kv1.Domain] = domainActuator{}

func (a domainActuator) apply(ctx context.Context, o *kv1.Domain, in applyInput) (outcome, error) {
	if keystone.IsDefaultDomain(o.Spec.Name) {
		// keystone-manage bootstrap creates it; it is never created or changed here.
		if _, err := domains.Get(ctx, a.c, keystone.DefaultDomainID).Extract(); err != nil {
			return outcome{}, fmt.Errorf("get the default domain: %w", err)
		}
		o.Status.DomainID = keystone.DefaultDomainID
		return outcome{message: "default domain (id default) exists"}, nil
	}
	s := o.Spec
	return applyNamed(ctx, namedKind[domains.Domain]{
		tracking: tracking[domains.Domain]{
			what: "domain " + s.Name, recorded: o.Status.DomainID, shared: in.shared, unique: true,
			find: func(ctx context.Context) (domains.Domain, bool, error) { return a.findDomain(ctx, s.Name) },
			get: func(ctx context.Context, id string) (domains.Domain, bool, error) {
				return getFound(domains.Get(ctx, a.c, id).Extract())
			},
			create: func(ctx context.Context) (domains.Domain, error) {
				return created1(domains.Create(ctx, a.c, domains.CreateOpts{Name: s.Name, Description: s.Description,
					Enabled: ptr(enabled(s.Enabled))}).Extract())
			},
			id:   func(d domains.Domain) string { return d.ID },
			name: func(d domains.Domain) string { return d.Name },
		},
		state: func(d domains.Domain) state {
			return state{name: d.Name, description: d.Description, enabled: d.Enabled}
		},
		update: func(ctx context.Context, id string, p patch) error {
			_, err := domains.Update(ctx, a.c, id, domains.UpdateOpts{Name: deref(p.name), Description: p.description, Enabled: p.enabled}).Extract()
			return err
		},
		record:  func(id string) { o.Status.DomainID = id; a.remember("domain", "", s.Name, id) },
		renamed: func(old, _ string) { a.forget("domain", "", old) },
	}, want{name: s.Name, description: s.Description, enabled: s.Enabled, hasEnabled: true})
}

// remove disables the domain, as Keystone refuses to delete an enabled one
// (403), then deletes it. The default domain is never deleted.
func (a domainActuator) remove(ctx context.Context, o *kv1.Domain) error {
	if keystone.IsDefaultDomain(o.Spec.Name) {
		return nil
	}
	err := removeTracked(ctx, "domain "+o.Spec.Name, o.Status.DomainID,
		func(ctx context.Context) (string, bool, error) {
			d, found, err := a.findDomain(ctx, o.Spec.Name)
			return d.ID, found, err
		},
		func(ctx context.Context, id string) error {
			if _, err := domains.Update(ctx, a.c, id, domains.UpdateOpts{Enabled: ptr(false)}).Extract(); err != nil {
				return err
			}
			return domains.Delete(ctx, a.c, id).ExtractErr()
		})
	if err == nil {
		a.forget("domain", "", o.Spec.Name)
	}
	return err
}

func ptr[T any](v T) *T { return &v }

// deref is *p, or the zero value for nil (gophercloud's omitempty fields).
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// enabled is the value of an optional enabled field; unset means true.
func enabled(b *bool) bool { return b == nil || *b }
