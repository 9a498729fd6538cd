package keystoneservice

import (
	"context"
	"fmt"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/generations"
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/internal/keystone"
	"github.com/c5c3/orderhub/internal/password"
	"github.com/c5c3/orderhub/korc"
)

// EffectiveDomain is spec.account.domainName, or the plane's admin domain.
func EffectiveDomain(ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) string {
	return controlplane.DomainOr(string(ks.Spec.Account.DomainName), cp)
}

// AdminIdentityOf decides the admin-identity refusal under
// keystone.SameIdentityName; owns is whether the managed User child exists
// (docs/reference/keystoneservice.md, "The admin identity is never registrable").
func AdminIdentityOf(ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane, owns bool) AdminIdentity {
	a := controlplane.AdminOf(cp)
	if !keystone.SameIdentityName(ks.EffectiveUserName(), a.User) || !keystone.SameIdentityName(EffectiveDomain(ks, cp), a.Domain) {
		return NotAdmin
	}
	if owns {
		return AdminOwned
	}
	return AdminNotOwned
}

// ConsumerSecretName is "<metadata.name>-credentials", the consumer Secret
// (docs/reference/keystoneservice.md, "Consumer Secret contract").
func ConsumerSecretName(ks *c5c3v1alpha1.KeystoneService) string { return ks.Name + "-credentials" }

// accountPass carries one pass over the account block.
type accountPass struct {
	r   *Reconciler
	ks  *c5c3v1alpha1.KeystoneService
	cp  *c5c3v1alpha1.ControlPlane
	o   AccountObservation
	st  c5c3v1alpha1.KeystoneServiceAccountStatus
	ns  string // the plane's namespace, where the K-ORC children live
	lbl map[string]string
}

func (p *accountPass) name(disc string) string {
	return korc.RegistrationChildName(p.ks.Namespace, p.ks.Name, disc)
}

// imports authenticate with the plane's application-credential cloud,
// managed children with its password cloud (docs/reference/controlplane.md,
// "Plane contract").
func (p *accountPass) importChild(disc string) korc.Child {
	return controlplane.ImportChild(p.cp, p.name(disc), p.lbl)
}

func (p *accountPass) managedChild(disc string) korc.Child {
	return controlplane.ManagedChild(p.cp, p.name(disc), p.lbl)
}

// account projects the account block and returns the observation and
// status.account (docs/reference/keystoneservice.md, "KeystoneServiceAccountSpec").
func (r *Reconciler) account(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) (AccountObservation, *c5c3v1alpha1.KeystoneServiceAccountStatus) {
	p := &accountPass{r: r, ks: ks, cp: cp, ns: cp.Namespace, lbl: ChildLabels(ks)}
	if ks.Status.Account != nil {
		p.st = *ks.Status.Account
	}
	p.st.SecretName = ConsumerSecretName(ks)
	p.o = AccountObservation{Plane: cp.Namespace + "/" + cp.Name, External: controlplane.IsExternal(cp),
		Adopt: ks.Spec.Account.Adopt, ProjectCreate: ks.Spec.Account.Project.Create}
	if err := p.run(ctx); err != nil {
		p.o.Error = err
	}
	return p.o, &p.st
}

// run is the account pass's steps in order; a refusing or waiting step ends
// the pass without an error.
func (p *accountPass) run(ctx context.Context) error {
	var user orcv1alpha1.User
	if stop, err := p.identity(ctx, &user); err != nil || stop {
		return err
	}
	domainRef, err := p.domain(ctx)
	if err != nil {
		return err
	}
	adopting, stop, err := p.probes(ctx, domainRef)
	if err != nil || stop {
		return err
	}
	projState, err := p.project(ctx, domainRef)
	if err != nil {
		return err
	}
	userState, secrets, current, err := p.user(ctx, &user, domainRef, adopting)
	if err != nil {
		return err
	}
	if projState.Phase == korc.PhaseAvailable {
		p.st.ProjectID = projState.ID
	}
	// Roles: an import per declared role, a grant per imported role.
	if err := p.roles(ctx, userState, projState); err != nil {
		return err
	}
	// Delivery of the generation Keystone applied.
	if p.o.Deliverable == 0 || p.o.Applied != p.o.Desired {
		return nil
	}
	if err := p.deliver(ctx, secrets[p.o.Deliverable], EffectiveDomain(p.ks, p.cp)); err != nil {
		return err
	}
	// Superseded generations go once K-ORC applied a newer one.
	for _, g := range current.Delete {
		if err := p.deleteChild(ctx, &corev1.Secret{}, p.name(korc.PasswordDiscriminator(g))); err != nil {
			return err
		}
	}
	return nil
}

// identity reads the managed User into user, refuses the admin identity and
// takes the name claims (docs/reference/keystoneservice.md, "Collision and
// adoption"). stop ends the pass.
func (p *accountPass) identity(ctx context.Context, user *orcv1alpha1.User) (stop bool, err error) {
	exists, err := p.get(ctx, p.name(korc.DiscUser), user)
	if err != nil {
		return true, err
	}
	p.o.UserExists = exists
	if p.o.Admin = AdminIdentityOf(p.ks, p.cp, exists); p.o.Admin != NotAdmin {
		return true, nil // refused ahead of the probe, changing nothing
	}
	if p.o.ClaimHolder, err = p.r.acquireClaim(ctx, p.ks, p.cp, AccountClaim); err != nil || p.o.ClaimHolder != "" {
		return true, err
	}
	// A project the registration creates is claimed too.
	if p.o.ProjectClaimHolder, err = p.r.acquireClaim(ctx, p.ks, p.cp, AccountProjectClaim); err != nil {
		return true, err
	}
	if p.o.ProjectClaimHolder != "" {
		// Whether our managed Project predates claims decides the message.
		p.o.ProjectExists, err = p.get(ctx, p.name(korc.DiscProject), &orcv1alpha1.Project{})
		return true, err
	}
	return false, nil
}

// domain applies the account's domain import unless it is the plane's admin
// domain, and returns the import's name.
func (p *accountPass) domain(ctx context.Context) (string, error) {
	admin := controlplane.AdminOf(p.cp)
	domain := EffectiveDomain(p.ks, p.cp)
	if keystone.SameIdentityName(domain, admin.Domain) {
		return korc.AdminDomainImportName(p.cp.Name, admin.Domain), nil
	}
	d := korc.DomainImportByName(p.importChild(korc.DiscDomain), domain)
	if err := korc.Apply(ctx, p.r.client, ControllerName, d); err != nil {
		return "", err
	}
	p.o.Children = append(p.o.Children, Child{What: "the import of domain " + domain, State: korc.StateOf(d)})
	return d.Name, nil
}

// probes applies both collision probes before either managed child is created
// (docs/reference/keystoneservice.md, "Collision and adoption"). stop: a probe
// has no create verdict or the user is managed elsewhere; adopting: adopt consents.
func (p *accountPass) probes(ctx context.Context, domainRef string) (adopting, stop bool, err error) {
	acc := p.ks.Spec.Account
	if acc.Project.Create {
		if p.o.ProjectExists, err = p.get(ctx, p.name(korc.DiscProject), &orcv1alpha1.Project{}); err != nil {
			return false, true, err
		}
		if !p.o.ProjectExists {
			probe := korc.ProjectProbe(p.importChild(korc.DiscProjectProbe), string(acc.Project.Name), domainRef)
			if err := korc.Apply(ctx, p.r.client, ControllerName, probe); err != nil {
				return false, true, err
			}
			p.o.ProjectProbe = korc.Probe(probe)
		}
	}
	if !p.o.UserExists {
		probe := korc.UserProbe(p.importChild(korc.DiscUserProbe), p.ks.EffectiveUserName(), domainRef)
		if err := korc.Apply(ctx, p.r.client, ControllerName, probe); err != nil {
			return false, true, err
		}
		p.o.UserProbe = korc.Probe(probe)
	}
	if (acc.Project.Create && !p.o.ProjectExists && korc.DecideProbe(p.o.ProjectProbe, false) != korc.ProbeCreate) ||
		(!p.o.UserExists && korc.DecideProbe(p.o.UserProbe, acc.Adopt) != korc.ProbeCreate) {
		return false, true, nil
	}
	if adopting = !p.o.UserExists && p.o.UserProbe.Outcome == korc.ProbeFound; !adopting {
		return false, false, nil
	}
	if p.o.UserOwnedBy, err = p.r.managedElsewhere(ctx, &orcv1alpha1.UserList{}, p.ns, p.o.UserProbe.ID, p.ks); err != nil || p.o.UserOwnedBy != "" {
		return true, true, err
	}
	return true, false, nil
}

// project applies the account's project (managed or imported) and returns its state.
func (p *accountPass) project(ctx context.Context, domainRef string) (korc.State, error) {
	acc := p.ks.Spec.Account
	pn := orcv1alpha1.KeystoneName(acc.Project.Name)
	dref := orcv1alpha1.KubernetesNameRef(domainRef)
	var proj *orcv1alpha1.Project
	if acc.Project.Create {
		proj = korc.ManagedProject(p.managedChild(korc.DiscProject), orcv1alpha1.ProjectResourceSpec{
			Name: &pn, DomainRef: &dref, Enabled: ptr.To(true)})
		p.o.ProjectExists = true
	} else {
		proj = korc.ImportProject(p.importChild(korc.DiscProject), orcv1alpha1.ProjectFilter{Name: &pn, DomainRef: &dref})
	}
	if err := korc.Apply(ctx, p.r.client, ControllerName, proj); err != nil {
		return korc.State{}, err
	}
	projState := korc.StateOf(proj)
	p.o.Children = append(p.o.Children, Child{What: "the project " + string(pn), State: projState})
	return projState, p.deleteChild(ctx, &orcv1alpha1.Project{}, p.name(korc.DiscProjectProbe))
}

// user creates the planned password generation, applies the managed User
// naming the desired one and records the generations; it returns the User's
// state, the password Secrets by generation and the plan re-made with K-ORC's
// current report.
func (p *accountPass) user(ctx context.Context, user *orcv1alpha1.User, domainRef string, adopting bool) (
	korc.State, map[int64]*corev1.Secret, generations.PasswordPlan, error) {
	userName := p.ks.EffectiveUserName()
	secrets, plan, err := p.passwords(ctx, user, adopting)
	if err != nil {
		return korc.State{}, nil, generations.PasswordPlan{}, err
	}
	if adopting {
		p.r.recorder.Eventf(p.ks, nil, corev1.EventTypeNormal, "AdoptUser", "Adopt",
			"taking over the existing Keystone user %s (id %s) and its password", userName, p.o.UserProbe.ID)
	}
	un := orcv1alpha1.OpenStackName(userName)
	dref := orcv1alpha1.KubernetesNameRef(domainRef)
	ref := orcv1alpha1.KubernetesNameRef(p.name(korc.PasswordDiscriminator(plan.Desired)))
	u := korc.ManagedUser(p.managedChild(korc.DiscUser), orcv1alpha1.UserResourceSpec{
		Name: &un, DomainRef: &dref, Enabled: ptr.To(true), PasswordRef: &ref})
	if err := korc.Apply(ctx, p.r.client, ControllerName, u); err != nil {
		return korc.State{}, nil, generations.PasswordPlan{}, err
	}
	p.o.UserExists = true
	userState := korc.StateOf(u)
	p.o.Children = append(p.o.Children, Child{What: "the user " + userName, State: userState})
	if err := p.deleteChild(ctx, &orcv1alpha1.User{}, p.name(korc.DiscUserProbe)); err != nil {
		return korc.State{}, nil, generations.PasswordPlan{}, err
	}
	applied, _ := korc.GenerationOfPasswordRef(korc.AppliedPasswordRef(u))
	current := generations.PlanPassword(generations.PasswordInputs{Existing: generationsOf(secrets), Applied: applied})
	p.o.Desired, p.o.Applied, p.o.Deliverable = plan.Desired, applied, current.Deliverable
	if userState.Phase == korc.PhaseAvailable {
		p.st.UserID = userState.ID
	}
	return userState, secrets, current, nil
}

// passwords creates the generation generations.PlanPassword asks for and
// returns the Secrets by generation with the plan.
func (p *accountPass) passwords(ctx context.Context, user *orcv1alpha1.User, adopting bool) (map[int64]*corev1.Secret, generations.PasswordPlan, error) {
	secrets, err := p.passwordSecrets(ctx)
	if err != nil {
		return nil, generations.PasswordPlan{}, err
	}
	applied, _ := korc.GenerationOfPasswordRef(korc.AppliedPasswordRef(user))
	plan := generations.PlanPassword(generations.PasswordInputs{Existing: generationsOf(secrets), Applied: applied,
		Request: p.ks.Annotations[c5c3v1alpha1.AnnotationPasswordRotationRequest], Adopting: adopting})
	if plan.Create == 0 {
		return secrets, plan, nil
	}
	pw := password.New()
	ann := map[string]string{annotationAnswers: plan.CreateAnswers}
	if plan.CreateAdopted {
		ann[annotationAdopted] = "true"
	}
	s := korc.PasswordSecret(korc.Child{Name: p.name(korc.PasswordDiscriminator(plan.Create)), Namespace: p.ns, Labels: p.lbl},
		plan.Create, pw, ann)
	if err := p.r.client.Create(ctx, s, client.FieldOwner(ControllerName)); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, generations.PasswordPlan{}, fmt.Errorf("create password generation %d: %w", plan.Create, err)
	}
	if plan.Create > 1 {
		p.r.recorder.Eventf(p.ks, nil, corev1.EventTypeNormal, "PasswordRotation", "Rotate",
			"created password generation %d", plan.Create)
	}
	// Read it back: a concurrent pass may have created it first.
	var got corev1.Secret
	if err := p.r.client.Get(ctx, client.ObjectKeyFromObject(s), &got); err != nil {
		if !apierrors.IsNotFound(err) {
			return nil, generations.PasswordPlan{}, err
		}
		got = *s // not in the cache yet: what we created
	}
	secrets[plan.Create] = &got
	return secrets, plan, nil
}

// passwordSecrets lists the registration's password Secrets by generation.
func (p *accountPass) passwordSecrets(ctx context.Context) (map[int64]*corev1.Secret, error) {
	var list corev1.SecretList
	if err := p.r.client.List(ctx, &list, client.InNamespace(p.ns), client.MatchingLabels(p.lbl),
		client.HasLabels{korc.LabelPasswordGeneration}); err != nil {
		return nil, err
	}
	return korc.PasswordSecrets(list.Items, p.name), nil
}

func generationsOf(secrets map[int64]*corev1.Secret) map[int64]generations.Generation {
	out := make(map[int64]generations.Generation, len(secrets))
	for g, s := range secrets {
		out[g] = generations.Generation{Answers: s.Annotations[annotationAnswers], Adopted: s.Annotations[annotationAdopted] == "true"}
	}
	return out
}

// roleState is a declared role and its import's state.
type roleState struct {
	role string
	st   korc.State
}

// roles imports every declared role, revokes and releases undeclared ones and
// grants the declared ones once the user and project are Available; the admin
// credentials are read at most once.
func (p *accountPass) roles(ctx context.Context, user, project korc.State) error {
	declared, states, err := p.importRoles(ctx)
	if err != nil {
		return err
	}
	ready := user.Phase == korc.PhaseAvailable && project.Phase == korc.PhaseAvailable
	creds := &lazyCredentials{read: p.adminCredentials}
	if stop, err := p.revokeUndeclared(ctx, declared, ready, user.ID, project.ID, creds); err != nil || stop {
		return err
	}
	if !ready || len(states) == 0 {
		return nil
	}
	return p.grantDeclared(ctx, states, user.ID, project.ID, creds)
}

// importRoles applies the Role imports and returns their names (to role) and states.
func (p *accountPass) importRoles(ctx context.Context) (map[string]string, []roleState, error) {
	declared := map[string]string{}
	var states []roleState
	for _, role := range p.ks.Spec.Account.Roles {
		imp := korc.RoleImportByName(p.importChild(korc.RoleDiscriminator(string(role))), string(role))
		if err := korc.Apply(ctx, p.r.client, ControllerName, imp); err != nil {
			return nil, nil, err
		}
		declared[imp.Name] = string(role)
		st := korc.StateOf(imp)
		states = append(states, roleState{string(role), st})
		p.o.Children = append(p.o.Children, Child{What: "the import of role " + string(role) +
			" (it must exist in Keystone)", State: st})
	}
	return declared, states, nil
}

// revokeUndeclared revokes, then releases, each role no longer declared.
// stop: Keystone refused a revoke (p.o.GrantError).
func (p *accountPass) revokeUndeclared(ctx context.Context, declared map[string]string, ready bool, userID, projectID string,
	creds *lazyCredentials) (stop bool, err error) {
	var list orcv1alpha1.RoleList
	if err := p.r.client.List(ctx, &list, client.InNamespace(p.ns), client.MatchingLabels(p.lbl)); err != nil {
		return true, err
	}
	for i := range list.Items {
		imp := &list.Items[i]
		if _, ok := declared[imp.Name]; ok || !imp.DeletionTimestamp.IsZero() {
			continue
		}
		if id := korc.IDOf(imp); ready && id != "" {
			cr, err := creds.get(ctx)
			if err != nil {
				return true, err
			}
			if err := p.r.granter.Revoke(ctx, cr, userID, projectID, id); err != nil {
				p.o.GrantError = err
				return true, nil
			}
		}
		if err := p.deleteChild(ctx, &orcv1alpha1.Role{}, imp.Name); err != nil {
			return true, err
		}
	}
	return false, nil
}

// grantDeclared assigns every Available declared role Keystone lacks; a
// refusal is recorded (p.o.GrantError, MissingGrants) and the others go on.
func (p *accountPass) grantDeclared(ctx context.Context, states []roleState, userID, projectID string, creds *lazyCredentials) error {
	cr, err := creds.get(ctx)
	if err != nil {
		return err
	}
	granted, err := p.r.granter.Granted(ctx, cr, userID, projectID)
	if err != nil {
		p.o.GrantError = err
		return nil
	}
	for _, s := range states {
		if s.st.Phase != korc.PhaseAvailable || granted[s.st.ID] {
			continue
		}
		if err := p.r.granter.Grant(ctx, cr, userID, projectID, s.st.ID); err != nil {
			p.o.GrantError = err
			p.o.MissingGrants = append(p.o.MissingGrants, s.role)
			continue
		}
		p.r.recorder.Eventf(p.ks, nil, corev1.EventTypeNormal, "RoleAssigned", "Assign",
			"assigned role %s to the user on project %s", s.role, p.ks.Spec.Account.Project.Name)
	}
	return nil
}

// lazyCredentials reads the admin credentials on first use.
type lazyCredentials struct {
	read  func(context.Context) (grants.Credentials, error)
	creds *grants.Credentials
}

func (l *lazyCredentials) get(ctx context.Context) (grants.Credentials, error) {
	if l.creds == nil {
		cr, err := l.read(ctx)
		if err != nil {
			return grants.Credentials{}, err
		}
		l.creds = &cr
	}
	return *l.creds, nil
}

// adminCredentials reads the plane's admin password cloud
// (grants.AdminCredentials).
func (p *accountPass) adminCredentials(ctx context.Context) (grants.Credentials, error) {
	return grants.AdminCredentials(ctx, p.r.client, p.cp)
}

// get reads a child of the plane's namespace; exists is false when absent.
func (p *accountPass) get(ctx context.Context, name string, obj client.Object) (bool, error) {
	err := p.r.client.Get(ctx, types.NamespacedName{Namespace: p.ns, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

func (p *accountPass) deleteChild(ctx context.Context, obj client.Object, name string) error {
	obj.SetNamespace(p.ns)
	obj.SetName(name)
	return p.r.deleteIfExists(ctx, obj)
}

// recordDelivered records in status.account that generation gen is delivered.
func (p *accountPass) recordDelivered(gen int64) {
	if gen == p.st.PasswordGeneration {
		return
	}
	if p.st.PasswordGeneration > 0 {
		t := p.r.now()
		p.st.LastPasswordRotation = &t
	}
	p.st.PasswordGeneration = gen
}
