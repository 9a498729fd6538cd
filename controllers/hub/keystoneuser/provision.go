package keystoneuser

import (
	"context"
	"fmt"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/generations"
	"github.com/c5c3/orderhub/controllers/hub/nameprobe"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/password"
	"github.com/c5c3/orderhub/korc"
)

// pass carries one reconcile pass of an order whose shared gate is open.
type pass struct {
	r   *Reconciler
	o   orders.Order
	oc  client.Client // the order's cluster
	ku  *c5c3v1alpha1.KeystoneUser
	cp  *c5c3v1alpha1.ControlPlane
	st  *c5c3v1alpha1.KeystoneUserStatus
	now time.Time
	lbl map[string]string
	obs Observation
	// heldSchedule: a due scheduled rotation waits for a credential order's deletion.
	heldSchedule bool
	// budgetWait: the rotation budget withheld a rotation for this long (0: none).
	budgetWait time.Duration
}

func (p *pass) name(disc string) string {
	return korc.OrderChildName(korc.InfixUser, p.o.Cluster, p.o.Namespace, p.o.Name, disc)
}

// importChild authenticates with the plane's application-credential cloud,
// managedChild with its admin password cloud (docs/reference/controlplane.md, "Plane contract").
func (p *pass) importChild(disc string) korc.Child {
	return controlplane.ImportChild(p.cp, p.name(disc), p.lbl)
}

func (p *pass) managedChild(disc string) korc.Child {
	return controlplane.ManagedChild(p.cp, p.name(disc), p.lbl)
}

// get reads the child name of the plane's namespace into obj; false when absent.
func (p *pass) get(ctx context.Context, name string, obj client.Object) (bool, error) {
	err := p.r.Local.Get(ctx, types.NamespacedName{Namespace: p.cp.Namespace, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// run projects the order; a Kubernetes failure lands in obs.Error (Keystone
// side) or obs.DeliveryError, never returned: the requeue retries.
func (p *pass) run(ctx context.Context) error {
	p.obs.Plane = p.cp.Namespace + "/" + p.cp.Name
	p.obs.External = controlplane.IsExternal(p.cp)
	p.obs.Project = conditions.Gate{}
	// An unpublished Keystone is named before any password is applied.
	_, p.obs.NotPublished = orders.DeliveredAuthURL(p.cp, p.o.Cluster)
	if err := p.provision(ctx); err != nil {
		p.obs.Error = err
	}
	return nil
}

// provision is the pass's steps in order; a refusing or waiting step ends
// the pass without an error.
func (p *pass) provision(ctx context.Context) error {
	userName, domain := EffectiveUserName(p.ku), EffectiveDomain(p.ku, p.cp)
	p.st.UserName = userName
	var user orcv1alpha1.User
	if stop, err := p.identity(ctx, &user, userName, domain); err != nil || stop {
		return err
	}
	project, projectChild, err := p.defaultProject(ctx)
	if err != nil || !p.obs.Project.Passed() {
		return err
	}
	domainRef, err := p.domain(ctx, domain)
	if err != nil {
		return err
	}
	if !p.probe(ctx, userName) {
		return nil
	}
	secrets, plan, err := p.passwords(ctx, &user)
	if err != nil || ((plan.StoreHeld || plan.BudgetHeld) && plan.Desired == 0) {
		return err // with no generation to apply, the K-ORC User is left as it is (not created)
	}
	if !p.obs.UserExists {
		p.r.event(p.o, p.ku, corev1.EventTypeNormal, EventCreateUser, "the collision probe found no user %s in domain %s: "+
			"creating the managed K-ORC User %s/%s", userName, domain, p.cp.Namespace, p.name(korc.DiscUser))
	}
	u, err := p.user(ctx, userName, domainRef, projectChild, plan.Desired)
	if err != nil {
		return err
	}
	// Re-plan with what K-ORC reports after this pass's apply.
	applied, _ := korc.GenerationOfPasswordRef(korc.AppliedPasswordRef(u))
	cur := PlanRotation(RotationInputs{Existing: generationsOf(secrets), Applied: applied, Spec: SpecGeneration(p.ku),
		Status: p.st.PasswordGeneration})
	p.obs.Desired, p.obs.Applied, p.obs.Deliverable = plan.Desired, applied, cur.Deliverable
	if p.obs.User.Phase != korc.PhaseAvailable || cur.Deliverable == 0 || applied != plan.Desired {
		return nil
	}
	return p.deliverApplied(ctx, secrets[cur.Deliverable], cur, userName, domain, project)
}

// identity reads the managed User into user, refuses the admin identity and
// takes the name claim before probe and create; stop ends the pass
// (docs/reference/keystoneuser.md, "Consent").
func (p *pass) identity(ctx context.Context, user *orcv1alpha1.User, userName, domain string) (stop bool, err error) {
	exists, err := p.get(ctx, p.name(korc.DiscUser), user)
	if err != nil {
		return true, err
	}
	p.obs.UserExists = exists
	if IsAdminIdentity(p.ku, p.cp) {
		p.obs.Admin, p.obs.AdminOwned = true, exists
		return true, nil
	}
	holder, err := orders.Acquire(ctx, p.r.Claims, p.cp.Namespace, userClaim(userName, domain), p.o)
	if err != nil {
		return true, err
	}
	p.obs.ClaimHolder = holder
	return holder != "", nil
}

// defaultProject gates on spec.defaultProjectRef (obs.Project) and returns
// that order (nil: absent) and its K-ORC child's name ("": no reference).
func (p *pass) defaultProject(ctx context.Context) (*c5c3v1alpha1.KeystoneProject, string, error) {
	ref := p.ku.Spec.DefaultProjectRef
	if ref == nil {
		return nil, "", nil
	}
	project, err := orders.GetOrNil[c5c3v1alpha1.KeystoneProject](ctx, p.oc, p.ku.Namespace, ref.Name)
	if err != nil {
		return nil, "", err
	}
	planeNS, planeName := orders.PlaneKey(p.ku.Spec.ControlPlaneRef, p.ku.Namespace)
	p.obs.Project = orders.ProjectGate(p.ku.Namespace, *ref, project, planeNS, planeName)
	return project, korc.OrderChildName(korc.InfixProject, p.o.Cluster, p.o.Namespace, ref.Name, korc.DiscProject), nil
}

// domain returns the name of the domain import (the plane's for its admin
// domain, else the order's own) and records its id and state.
func (p *pass) domain(ctx context.Context, domain string) (string, error) {
	if !UsesAdminDomain(p.ku, p.cp) {
		d := korc.DomainImportByName(p.importChild(korc.DiscDomain), domain)
		if err := korc.Apply(ctx, p.r.Local, ControllerName, d); err != nil {
			return "", err
		}
		s := korc.StateOf(d)
		p.obs.Domain = &s
		if s.Phase == korc.PhaseAvailable {
			p.st.DomainID = s.ID
		}
		return d.Name, nil
	}
	domainRef := korc.AdminDomainImportName(p.cp.Name, controlplane.AdminOf(p.cp).Domain)
	var d orcv1alpha1.Domain
	ok, err := p.get(ctx, domainRef, &d)
	if err != nil {
		return "", err
	}
	if ok && korc.AvailableUpToDate(&d) {
		p.st.DomainID = korc.IDOf(&d)
	}
	if ok && !p.obs.UserExists {
		// The plane's import decides only while the probe still does.
		s := korc.StateOf(&d)
		p.obs.Domain = &s
	}
	return domainRef, nil
}

// probe asks Keystone, with the plane's admin session, whether the name is
// taken in the user's domain before the managed create; create is true when
// the User exists or the name is free. It waits for the domain's id.
func (p *pass) probe(ctx context.Context, userName string) (create bool) {
	if p.obs.UserExists {
		return true
	}
	domainID := nameprobe.DomainID(p.obs.Domain)
	if domainID == "" {
		p.obs.Probe = korc.ProbeResult{Outcome: korc.ProbePending}
		return false
	}
	p.obs.Probe = p.r.prober.User(ctx, p.r.Local, p.cp, domainID, userName)
	return korc.DecideProbe(p.obs.Probe, false) == korc.ProbeCreate
}

// passwords plans the generations (p.plan) and creates the one asked for.
func (p *pass) passwords(ctx context.Context, user *orcv1alpha1.User) (map[int64]*corev1.Secret, RotationPlan, error) {
	secrets, err := p.passwordSecrets(ctx)
	if err != nil {
		return nil, RotationPlan{}, err
	}
	applied, _ := korc.GenerationOfPasswordRef(korc.AppliedPasswordRef(user))
	plan, err := p.plan(ctx, secrets, applied)
	if err != nil {
		return nil, RotationPlan{}, err
	}
	if plan.StoreHeld {
		p.obs.StoreHeld, p.obs.StoreNotReady = true, true
		if plan.Desired == 0 {
			return secrets, plan, nil
		}
	}
	if plan.Create > 0 {
		if err := p.createPassword(ctx, secrets, plan); err != nil {
			return nil, RotationPlan{}, err
		}
	}
	return secrets, plan, nil
}

// user applies the managed K-ORC User naming generation desired, records its
// state and id and deletes the probe.
func (p *pass) user(ctx context.Context, userName, domainRef, projectChild string, desired int64) (*orcv1alpha1.User, error) {
	un := orcv1alpha1.OpenStackName(userName)
	dref := orcv1alpha1.KubernetesNameRef(domainRef)
	pref := orcv1alpha1.KubernetesNameRef(p.name(korc.PasswordDiscriminator(desired)))
	spec := orcv1alpha1.UserResourceSpec{Name: &un, DomainRef: &dref, Enabled: ptr.To(true), PasswordRef: &pref}
	if projectChild != "" {
		spec.DefaultProjectRef = ptr.To(orcv1alpha1.KubernetesNameRef(projectChild))
	}
	u := korc.ManagedUser(p.managedChild(korc.DiscUser), spec)
	if err := korc.Apply(ctx, p.r.Local, ControllerName, u); err != nil {
		return nil, err
	}
	p.obs.UserExists = true
	p.obs.User = korc.StateOf(u)
	// An order probed by K-ORC before nameprobe leaves its probe import.
	if err := orders.DeleteIfPresent(ctx, p.r.Local, &orcv1alpha1.User{ObjectMeta: metav1.ObjectMeta{
		Namespace: p.cp.Namespace, Name: p.name(korc.DiscUserProbe)}}); err != nil {
		return nil, err
	}
	if p.obs.User.Phase == korc.PhaseAvailable {
		p.st.UserID = p.obs.User.ID
	}
	return u, nil
}

// deliverApplied verifies (verifyAtRest) and delivers cur.Deliverable
// (Secret s), records it and deletes cur.Delete (docs/reference/keystoneuser.md,
// "Rotation" and "What is detected how fast").
func (p *pass) deliverApplied(ctx context.Context, s *corev1.Secret, cur RotationPlan, userName, domain string,
	project *c5c3v1alpha1.KeystoneProject) error {
	pw := s.Data[korc.PasswordKey]
	if len(pw) == 0 {
		return fmt.Errorf("password generation %d: the Secret has no %s key", cur.Deliverable, korc.PasswordKey)
	}
	same, err := p.deliveredIs(ctx, pw)
	if err != nil {
		p.obs.DeliveryError = err
		return nil
	}
	unchanged := same && p.st.PasswordGeneration == cur.Deliverable
	if err := p.verifyAtRest(ctx, pw, unchanged, cur.Deliverable, userName, domain); err != nil {
		if !KeepsDelivered(unchanged, err) {
			p.obs.Rejected, p.obs.Stale = err, unchanged
			return nil
		}
		logf.FromContext(ctx).Info("Keystone did not answer the verification of the delivered password; it stays delivered",
			"generation", cur.Deliverable, "error", err.Error())
	}
	if err := p.deliver(ctx, pw, domain, ScopeOf(project, p.cp)); err != nil {
		p.obs.DeliveryError = err
		return nil
	}
	if !p.obs.Delivered {
		return nil
	}
	if p.st.PasswordGeneration != cur.Deliverable {
		first := p.st.PasswordGeneration == 0
		p.st.PasswordGeneration = cur.Deliverable
		p.st.LastPasswordRotation = ptr.To(metav1.NewTime(p.now))
		if first {
			p.r.event(p.o, p.ku, corev1.EventTypeNormal, EventPasswordDelivered, "password generation %d delivered", cur.Deliverable)
		} else {
			p.r.event(p.o, p.ku, corev1.EventTypeNormal, EventPasswordDelivered, "password rotated: generation %d delivered", cur.Deliverable)
		}
	}
	p.st.SecretName = orders.SecretName(p.ku.Name)
	p.st.SecretKeys = []string{deliveredKeyCloudsYAML, deliveredKeyPassword}
	p.rollConsumers(ctx, cur.Deliverable)
	// Superseded generations go once a newer one is applied and delivered.
	for _, g := range cur.Delete {
		if err := orders.DeleteIfExists(ctx, p.r.Local, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
			Namespace: p.cp.Namespace, Name: p.name(korc.PasswordDiscriminator(g))}}); err != nil {
			return err
		}
	}
	return nil
}

// plan decides the pass's password generations, reading the credential
// orders only when a rotation is due and the store only when the plan would
// create or switch.
func (p *pass) plan(ctx context.Context, secrets map[int64]*corev1.Secret, applied int64) (RotationPlan, error) {
	in := RotationInputs{Existing: generationsOf(secrets), Applied: applied, Spec: SpecGeneration(p.ku), Status: p.st.PasswordGeneration}
	var held []string
	if next := NextRotation(p.st.LastPasswordRotation, Interval(p.ku)); next != nil && !p.now.Before(next.Time) {
		in.Due = true
		var acs c5c3v1alpha1.KeystoneApplicationCredentialList
		if err := p.oc.List(ctx, &acs, client.InNamespace(p.ku.Namespace),
			client.MatchingFields{orders.IndexUserRef: p.ku.Name}); err != nil {
			return RotationPlan{}, fmt.Errorf("list KeystoneApplicationCredentials in %s: %w", p.ku.Namespace, err)
		}
		held = ScheduleHeldBy(p.ku.Name, acs.Items)
		in.Held = len(held) > 0
	}
	plan := PlanRotation(in)
	if plan.Create > 0 || plan.Desired != applied {
		if ready, msg := orders.StoreReady(ctx, p.r.Local, p.cp); !ready {
			in.StoreBlocked = true
			p.obs.StoreMessage = msg
			plan = PlanRotation(in)
		}
	}
	if plan.Raised || plan.Scheduled || plan.First {
		// Spent only by a rotation or first password about to start (docs/reference/controlplane.md, "Rotation budget").
		if hold := p.r.budget.Take(p.cp, p.o, p.now); hold.Held() {
			what := fmt.Sprintf("the rotation to password generation %d", plan.Create)
			if plan.First {
				what = fmt.Sprintf("the first password (generation %d) and with it the Keystone user", plan.Create)
			}
			in.BudgetBlocked = true
			plan = PlanRotation(in)
			p.budgetWait = hold.Wait
			p.obs.BudgetHeld = hold.Message(what, p.now)
		}
	}
	if plan.HeldSchedule {
		p.heldSchedule = true
		p.r.event(p.o, p.ku, corev1.EventTypeNormal, EventRotationHeld,
			"the scheduled password rotation waits while KeystoneApplicationCredential %v is being deleted", held)
	}
	return plan, nil
}

// createPassword creates generation plan.Create and adds it to secrets.
func (p *pass) createPassword(ctx context.Context, secrets map[int64]*corev1.Secret, plan RotationPlan) error {
	pw := password.New()
	s := korc.PasswordSecret(korc.Child{Name: p.name(korc.PasswordDiscriminator(plan.Create)), Namespace: p.cp.Namespace, Labels: p.lbl},
		plan.Create, pw, nil)
	if err := p.r.Local.Create(ctx, s, client.FieldOwner(ControllerName)); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create password generation %d: %w", plan.Create, err)
	}
	switch {
	case plan.Raised:
		p.r.event(p.o, p.ku, corev1.EventTypeNormal, EventPasswordRotation,
			"spec.passwordGeneration is %d: created password generation %d", SpecGeneration(p.ku), plan.Create)
	case plan.Scheduled:
		p.r.event(p.o, p.ku, corev1.EventTypeNormal, EventPasswordRotation,
			"the schedule fell due: created password generation %d", plan.Create)
	case plan.Recovery:
		p.r.event(p.o, p.ku, corev1.EventTypeWarning, EventPasswordRotation,
			"the Secret of the applied password generation was deleted outside orderhub: rotating to generation %d", plan.Create)
	}
	// Read it back: a concurrent pass may have created it first.
	var got corev1.Secret
	if err := p.r.Local.Get(ctx, client.ObjectKeyFromObject(s), &got); err != nil {
		if !apierrors.IsNotFound(err) {
			return err
		}
		got = *s // not in the cache yet: what we created
	}
	secrets[plan.Create] = &got
	return nil
}

// passwordSecrets lists the order's password Secrets by generation.
func (p *pass) passwordSecrets(ctx context.Context) (map[int64]*corev1.Secret, error) {
	var list corev1.SecretList
	if _, err := orders.ListChildren(ctx, p.r.Children, &list, p.cp.Namespace, p.lbl); err != nil {
		return nil, err
	}
	return korc.PasswordSecrets(list.Items, p.name), nil
}

func generationsOf(secrets map[int64]*corev1.Secret) map[int64]generations.Generation {
	out := make(map[int64]generations.Generation, len(secrets))
	for g := range secrets {
		out[g] = generations.Generation{}
	}
	return out
}

// caBundle is the plane's CA bundle for the token check (External mode).
// A failed read checks without one.
func (p *pass) caBundle(ctx context.Context) []byte {
	ca, _, _ := controlplane.ReadCABundle(ctx, p.r.Local, p.cp)
	return ca
}
