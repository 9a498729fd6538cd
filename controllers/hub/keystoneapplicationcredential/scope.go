package keystoneapplicationcredential

import (
	"context"
	"errors"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"

	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/korc"
)

// RoleLister returns the names of the roles the mint cloud's user holds on
// its project, as Keystone reports them; errors wrap ErrLoginRefused on a
// refused login.
type RoleLister func(ctx context.Context, m applicationcredential.MintParams) ([]string, error)

// KeystoneTokenRoles is the default RoleLister: the roles of a
// project-scoped token of the user (effective roles, implied ones
// included), which is what Keystone checks an application credential's
// roles against.
func KeystoneTokenRoles(ctx context.Context, m applicationcredential.MintParams) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, keystoneTimeout)
	defer cancel()
	pc, release, err := loginAsUser(ctx, m)
	if err != nil {
		return nil, err
	}
	defer release()
	res, ok := pc.GetAuthResult().(tokens.CreateResult)
	if !ok {
		return nil, errors.New("the login returned no token body")
	}
	roles, err := res.ExtractRoles()
	if err != nil {
		return nil, fmt.Errorf("read the token's roles: %w", err)
	}
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = r.Name
	}
	return names, nil
}

// scope is the K-ORC scope the spec asks for (applicationcredential.ScopeOf).
func (p *pass) scope() applicationcredential.Scope {
	return applicationcredential.ScopeOf(&p.ac.Spec, p.child)
}

// admitScope checks d, an ActionCreate, against spec.roles: with roles
// ordered it asks Keystone for the user's roles on the project and, when
// one is missing, records the RoleNotHeld refusal and holds instead
// (docs/reference/keystoneapplicationcredential.md, "Scope").
func (p *pass) admitScope(ctx context.Context, d applicationcredential.Decision) (applicationcredential.Decision, error) {
	if d.Action != applicationcredential.ActionCreate || len(p.ac.Spec.Roles) == 0 || p.mint == nil {
		return d, nil
	}
	held, err := p.r.roles(ctx, *p.mint)
	if err != nil {
		return d, fmt.Errorf("read the roles KeystoneUser %s holds on KeystoneProject %s: %w",
			p.ac.Spec.UserRef.Name, p.ac.Spec.ProjectRef.Name, err)
	}
	refusal := applicationcredential.RoleRefusal(p.ac.Spec.Roles, held, p.ac.Spec.UserRef.Name, p.ac.Spec.ProjectRef.Name)
	if refusal.Passed() {
		return d, nil
	}
	p.obs.Refusal = refusal
	return applicationcredential.Decision{Action: applicationcredential.ActionHold, Redeliver: d.Redeliver}, nil
}

// applyScopeImports applies the unmanaged K-ORC Role import of each
// spec.roles entry (by name) and Service import of each access rule's
// service type, authenticated with the plane's admin cloud; K-ORC creates
// the credential once they resolve.
func (p *pass) applyScopeImports(ctx context.Context) error {
	creds := controlplane.Credentials(p.cp)
	for _, r := range p.ac.Spec.Roles {
		imp := korc.RoleImportByName(korc.Child{Name: p.child(korc.ScopeRoleDiscriminator(r)), Namespace: p.ns,
			Labels: p.lbl, Credentials: creds}, r)
		if err := korc.Apply(ctx, p.r.Local, ControllerName, imp); err != nil {
			return fmt.Errorf("apply the K-ORC Role import of %q: %w", r, err)
		}
	}
	for _, a := range p.ac.Spec.AccessRules {
		typ := a.Service
		imp := korc.ImportService(korc.Child{Name: p.child(korc.ScopeServiceDiscriminator(typ)), Namespace: p.ns,
			Labels: p.lbl, Credentials: creds}, orcv1alpha1.ServiceFilter{Type: &typ})
		if err := korc.Apply(ctx, p.r.Local, ControllerName, imp); err != nil {
			return fmt.Errorf("apply the K-ORC Service import of %q: %w", typ, err)
		}
	}
	return nil
}

// scopeChanged reports whether the delivered generation's K-ORC child was
// created with another scope than the spec's; false while it is not listed.
func (p *pass) scopeChanged() bool {
	o, ok := p.credObjs[p.st.CredentialGeneration]
	return ok && applicationcredential.ScopeDiffers(o.Spec.Resource, p.scope())
}
