package keystoneproject

import (
	"context"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/nameprobe"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/korc"
)

// pass carries one projection pass of an order whose shared gate is open.
type pass struct {
	r   *Reconciler
	kp  *c5c3v1alpha1.KeystoneProject
	cp  *c5c3v1alpha1.ControlPlane
	ord orders.Order
	lbl map[string]string
}

// childName is the order's child name for discriminator disc.
func (p *pass) childName(disc string) string {
	return korc.OrderChildName(korc.InfixProject, p.ord.Cluster, p.ord.Namespace, p.ord.Name, disc)
}

// importChild is an import or probe child: it authenticates with the
// plane's application-credential cloud (controlplane.Credentials).
func (p *pass) importChild(disc string) korc.Child {
	return controlplane.ImportChild(p.cp, p.childName(disc), p.lbl)
}

// managedChild is a managed child: it authenticates with the plane's admin
// password cloud (docs/reference/controlplane.md, "Plane contract").
func (p *pass) managedChild(disc string) korc.Child {
	return controlplane.ManagedChild(p.cp, p.childName(disc), p.lbl)
}

// project projects the order and returns the observation and the project's
// domain id (docs/reference/keystoneproject.md); the managed Project is
// applied every pass, so a description change lands in place.
func (r *Reconciler) project(ctx context.Context, kp *c5c3v1alpha1.KeystoneProject, cp *c5c3v1alpha1.ControlPlane,
	ord orders.Order) (Observation, string) {
	p := &pass{r: r, kp: kp, cp: cp, ord: ord, lbl: orders.ChildLabels(ord)}
	o := Observation{Plane: cp.Namespace + "/" + cp.Name, External: controlplane.IsExternal(cp)}
	domainID, err := p.run(ctx, &o)
	if err != nil {
		o.Error = err
	}
	return o, domainID
}

// run is the pass's steps in order; it returns the project's domain id once
// K-ORC reports it; a refusing or waiting step ends the pass without an error.
func (p *pass) run(ctx context.Context, o *Observation) (string, error) {
	if stop, err := p.identity(ctx, o); err != nil || stop {
		return "", err
	}
	domainRef, err := p.domain(ctx, o)
	if err != nil {
		return "", err
	}
	if !p.probe(ctx, o) {
		return "", nil
	}
	kn := orcv1alpha1.KeystoneName(EffectiveProjectName(p.kp))
	dref := orcv1alpha1.KubernetesNameRef(domainRef)
	want := korc.ManagedProject(p.managedChild(korc.DiscProject), orcv1alpha1.ProjectResourceSpec{
		Name: &kn, DomainRef: &dref, Enabled: ptr.To(true), Description: description(p.kp.Spec.Description)})
	if err := korc.Apply(ctx, p.r.Local, ControllerName, want); err != nil {
		return "", err
	}
	o.ProjectExists = true
	o.Project = korc.StateOf(want)
	// An order probed by K-ORC before nameprobe leaves its probe import.
	if err := orders.DeleteIfPresent(ctx, p.r.Local, &orcv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Namespace: p.cp.Namespace,
		Name: p.childName(korc.DiscProjectProbe)}}); err != nil {
		return "", err
	}
	if want.Status.Resource != nil {
		return want.Status.Resource.DomainID, nil
	}
	return "", nil
}

// identity reads whether the managed Project exists, refuses the admin
// project and takes the name claim before probe and create; stop ends the
// pass (docs/reference/keystoneproject.md, "Consent").
func (p *pass) identity(ctx context.Context, o *Observation) (stop bool, err error) {
	var proj orcv1alpha1.Project
	err = p.r.Local.Get(ctx, types.NamespacedName{Namespace: p.cp.Namespace, Name: p.childName(korc.DiscProject)}, &proj)
	switch {
	case err == nil:
		o.ProjectExists = true
	case !apierrors.IsNotFound(err):
		return true, err
	}
	if o.Admin = AdminProjectOf(p.kp, p.cp, o.ProjectExists); o.Admin != NotAdminProject {
		return true, nil
	}
	o.DomainName = EffectiveDomain(p.kp, p.cp)
	holder, err := orders.Acquire(ctx, p.r.Claims, p.cp.Namespace, projectClaim(EffectiveProjectName(p.kp), o.DomainName), p.ord)
	if err != nil {
		return true, err
	}
	o.ClaimHolder = holder
	return holder != "", nil
}

// domain returns the name of the domain import (the order's own or the
// plane's; the plane's state counts only while the probe decides).
func (p *pass) domain(ctx context.Context, o *Observation) (string, error) {
	if !IsAdminDomain(o.DomainName, p.cp) {
		d := korc.DomainImportByName(p.importChild(korc.DiscDomain), o.DomainName)
		if err := korc.Apply(ctx, p.r.Local, ControllerName, d); err != nil {
			return "", err
		}
		st := korc.StateOf(d)
		o.Domain = &st
		return d.Name, nil
	}
	domainRef := korc.AdminDomainImportName(p.cp.Name, controlplane.AdminOf(p.cp).Domain)
	if o.ProjectExists {
		return domainRef, nil
	}
	var d orcv1alpha1.Domain
	switch err := p.r.Local.Get(ctx, types.NamespacedName{Namespace: p.cp.Namespace, Name: domainRef}, &d); {
	case err == nil:
		st := korc.StateOf(&d)
		o.Domain = &st
	case !apierrors.IsNotFound(err):
		return "", err
	}
	return domainRef, nil
}

// probe asks Keystone, with the plane's admin session, whether the name is
// taken in the project's domain before the managed create (a KeystoneProject
// never adopts); create is true when the Project exists or the name is free.
// It waits for the domain's id.
func (p *pass) probe(ctx context.Context, o *Observation) (create bool) {
	if o.ProjectExists {
		return true
	}
	domainID := nameprobe.DomainID(o.Domain)
	if domainID == "" {
		o.Probe = korc.ProbeResult{Outcome: korc.ProbePending}
		return false
	}
	name := EffectiveProjectName(p.kp)
	o.Probe = p.r.prober.Project(ctx, p.r.Local, p.cp, domainID, name)
	if korc.DecideProbe(o.Probe, false) != korc.ProbeCreate {
		return false
	}
	orders.Event(p.r.Recorder, p.ord, p.kp, corev1.EventTypeNormal, "ProjectCreate", "Create",
		"no project %s in domain %s: creating the managed K-ORC Project %s/%s", name, o.DomainName, p.cp.Namespace, p.childName(korc.DiscProject))
	return true
}
