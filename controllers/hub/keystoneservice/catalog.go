package keystoneservice

import (
	"context"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/korc"
)

// catalogPass carries one pass over the catalog block.
type catalogPass struct {
	r  *Reconciler
	ks *c5c3v1alpha1.KeystoneService
	cp *c5c3v1alpha1.ControlPlane
	o  CatalogObservation
}

// catalog projects the catalog block: probe until the managed Service
// exists, then the Service and its Endpoints, and sweeps undeclared rows. A
// Kubernetes failure lands in the observation's Error.
func (r *Reconciler) catalog(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) CatalogObservation {
	p := &catalogPass{r: r, ks: ks, cp: cp, o: CatalogObservation{Adopt: ks.Spec.Catalog.Adopt,
		Endpoints: map[c5c3v1alpha1.EndpointInterface]korc.State{}}}
	for _, e := range ks.Spec.Catalog.Endpoints {
		p.o.Declared = append(p.o.Declared, e.Interface)
	}
	if err := p.run(ctx); err != nil {
		p.o.Error = err
	}
	return p.o
}

func (p *catalogPass) name(disc string) string {
	return korc.RegistrationChildName(p.ks.Namespace, p.ks.Name, disc)
}

// managed is a managed child named name, authenticating with the plane's
// password cloud.
func (p *catalogPass) managed(name string) korc.Child {
	return controlplane.ManagedChild(p.cp, name, ChildLabels(p.ks))
}

// run is the pass's steps: the probe (until the Service exists), the
// Service, its Endpoints, the sweep of undeclared rows.
func (p *catalogPass) run(ctx context.Context) error {
	if create, err := p.probe(ctx); err != nil || !create {
		return err
	}
	n := orcv1alpha1.OpenStackName(p.ks.EffectiveServiceName())
	want := korc.ManagedService(p.managed(p.name(korc.DiscService)), orcv1alpha1.ServiceResourceSpec{Name: &n, Type: p.ks.Spec.Catalog.ServiceType})
	if err := korc.Apply(ctx, p.r.client, ControllerName, want); err != nil {
		return err
	}
	p.o.Service = korc.StateOf(want)
	if err := p.r.deleteIfExists(ctx, &orcv1alpha1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: p.cp.Namespace,
		Name: p.name(korc.DiscServiceProbe)}}); err != nil {
		return err
	}
	for _, e := range p.ks.Spec.Catalog.Endpoints {
		ep := korc.ManagedEndpoint(p.managed(p.name(korc.EndpointDiscriminator(e.Interface))), orcv1alpha1.EndpointResourceSpec{
			Interface: string(e.Interface), URL: e.URL, ServiceRef: orcv1alpha1.KubernetesNameRef(p.name(korc.DiscService))})
		if err := korc.Apply(ctx, p.r.client, ControllerName, ep); err != nil {
			return err
		}
		p.o.Endpoints[e.Interface] = korc.StateOf(ep)
	}
	return p.sweepEndpoints(ctx)
}

// probe reads whether the managed Service exists and, until it does, applies
// the collision probe before the managed create
// (docs/reference/keystoneservice.md, "Collision and adoption"). create is
// true when the Service exists or may be created; a row another
// registration manages is never adopted.
func (p *catalogPass) probe(ctx context.Context) (create bool, err error) {
	ns, svcName, cat := p.cp.Namespace, p.name(korc.DiscService), p.ks.Spec.Catalog
	err = p.r.client.Get(ctx, types.NamespacedName{Namespace: ns, Name: svcName}, &orcv1alpha1.Service{})
	switch {
	case err == nil:
		p.o.ServiceExists = true
		return true, nil
	case !apierrors.IsNotFound(err):
		return false, err
	}
	pc := korc.Child{Name: p.name(korc.DiscServiceProbe), Namespace: ns, Labels: ChildLabels(p.ks), Credentials: controlplane.Credentials(p.cp)}
	probe := korc.ServiceProbe(pc, cat.ServiceType, p.ks.EffectiveServiceName())
	if err := korc.Apply(ctx, p.r.client, ControllerName, probe); err != nil {
		return false, err
	}
	p.o.Probe = korc.Probe(probe)
	if korc.DecideProbe(p.o.Probe, cat.Adopt) != korc.ProbeCreate {
		return false, nil
	}
	if p.o.Probe.Outcome == korc.ProbeFound {
		if p.o.OwnedBy, err = p.r.managedElsewhere(ctx, &orcv1alpha1.ServiceList{}, ns, p.o.Probe.ID, p.ks); err != nil || p.o.OwnedBy != "" {
			return false, err
		}
	}
	p.r.recorder.Eventf(p.ks, nil, corev1.EventTypeNormal, "CatalogCreate", "Create",
		"probe verdict %s (adopt %t): creating the managed Service %s/%s", p.o.Probe.Outcome, cat.Adopt, ns, svcName)
	p.o.ServiceExists = true
	return true, nil
}

// sweepEndpoints deletes the Endpoint children no longer declared
// (PlanEndpoints).
func (p *catalogPass) sweepEndpoints(ctx context.Context) error {
	var eps orcv1alpha1.EndpointList
	if err := p.r.client.List(ctx, &eps, client.InNamespace(p.cp.Namespace), client.MatchingLabels(ChildLabels(p.ks))); err != nil {
		return err
	}
	names := make([]string, 0, len(eps.Items))
	for _, e := range eps.Items {
		names = append(names, e.Name)
	}
	for _, name := range PlanEndpoints(p.ks, names) {
		if err := p.r.deleteIfExists(ctx, &orcv1alpha1.Endpoint{ObjectMeta: metav1.ObjectMeta{Namespace: p.cp.Namespace, Name: name}}); err != nil {
			return err
		}
	}
	return nil
}
