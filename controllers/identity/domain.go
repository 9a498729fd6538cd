package identity

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// domainActuator reconciles Domain: GET|POST /v3/domains, PATCH /v3/domains/{id}.
type domainActuator struct{ lookups }

var _ actuator[*kv1.Domain] = domainActuator{}

func (domainActuator) kind() string           { return "Domain" }
func (domainActuator) spec(o *kv1.Domain) any { return o.Spec }
func (domainActuator) inputs(context.Context, client.Reader, *kv1.Domain) (map[string]string, error) {
	return nil, nil
}

// domainUpdate is the PATCH that makes observed match spec; ok is false when
// nothing differs. An empty spec description leaves Keystone's as it is.
func domainUpdate(spec kv1.DomainSpec, observed domains.Domain) (domains.UpdateOpts, bool) {
	var u domains.UpdateOpts
	ok := false
	if spec.Description != "" && spec.Description != observed.Description {
		u.Description, ok = ptr(spec.Description), true
	}
	if want := enabled(spec.Enabled); want != observed.Enabled {
		u.Enabled, ok = ptr(want), true
	}
	return u, ok
}

func (a domainActuator) apply(ctx context.Context, o *kv1.Domain, _ applyInput) (outcome, error) {
	if keystone.IsDefaultDomain(o.Spec.Name) {
		// keystone-manage bootstrap creates it; it is never created or changed here.
		if _, err := domains.Get(ctx, a.c, keystone.DefaultDomainID).Extract(); err != nil {
			return outcome{}, fmt.Errorf("get the default domain: %w", err)
		}
		o.Status.DomainID = keystone.DefaultDomainID
		return outcome{message: "default domain (id default) exists"}, nil
	}
	where := "domain " + o.Spec.Name
	d, created, err := ensureUnique(ctx, where,
		func(ctx context.Context) (domains.Domain, bool, error) { return a.findDomain(ctx, o.Spec.Name) },
		func(ctx context.Context) (domains.Domain, error) {
			r, err := domains.Create(ctx, a.c, domains.CreateOpts{Name: o.Spec.Name, Description: o.Spec.Description,
				Enabled: ptr(enabled(o.Spec.Enabled))}).Extract()
			if r == nil {
				return domains.Domain{}, err
			}
			return *r, err
		})
	if err != nil {
		return outcome{}, err
	}
	a.remember("domain", "", o.Spec.Name, d.ID)
	if created {
		o.Status.DomainID = d.ID
		return changed("created " + where), nil
	}
	o.Status.DomainID = d.ID
	if u, ok := domainUpdate(o.Spec, d); ok {
		if _, err := domains.Update(ctx, a.c, d.ID, u).Extract(); err != nil {
			return outcome{}, fmt.Errorf("update domain %q: %w", o.Spec.Name, err)
		}
		return changed(updated("domain "+o.Spec.Name, fieldsOf(u.ToDomainUpdateMap()))), nil
	}
	return outcome{message: fmt.Sprintf("domain %s is up to date", o.Spec.Name)}, nil
}

// remove disables the domain, as Keystone refuses to delete an enabled one
// (403), then deletes it. The default domain is never deleted.
func (a domainActuator) remove(ctx context.Context, o *kv1.Domain) error {
	if keystone.IsDefaultDomain(o.Spec.Name) {
		return nil
	}
	id := o.Status.DomainID
	if id == "" {
		d, found, err := a.findDomain(ctx, o.Spec.Name)
		if err != nil || !found {
			return err
		}
		id = d.ID
	}
	if _, err := domains.Update(ctx, a.c, id, domains.UpdateOpts{Enabled: ptr(false)}).Extract(); err != nil {
		if keystone.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("disable domain %q: %w", o.Spec.Name, err)
	}
	if err := domains.Delete(ctx, a.c, id).ExtractErr(); err != nil && !keystone.IsNotFound(err) {
		return fmt.Errorf("delete domain %q: %w", o.Spec.Name, err)
	}
	a.forget("domain", "", o.Spec.Name)
	return nil
}

func ptr[T any](v T) *T { return &v }

// enabled is the value of an optional enabled field; unset means true.
func enabled(b *bool) bool { return b == nil || *b }
