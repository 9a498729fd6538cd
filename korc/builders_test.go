package korc

import (
	"testing"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	"k8s.io/utils/ptr"
)

var child = Child{Name: "workflow-1a2b3c4d-registration-service", Namespace: "openstack",
	Labels:      map[string]string{"c5c3.io/keystoneservice-name": "workflow"},
	Credentials: orcv1alpha1.CloudCredentialsReference{SecretName: "k-orc-clouds-yaml", CloudName: "admin"}}

func TestManagedBuilders(t *testing.T) {
	svc := ManagedService(child, orcv1alpha1.ServiceResourceSpec{Type: "workflow", Name: ptr.To(orcv1alpha1.OpenStackName("workflow"))})
	if svc.APIVersion != "openstack.k-orc.cloud/v1alpha1" || svc.Kind != "Service" {
		t.Fatalf("type meta %+v", svc.TypeMeta)
	}
	if svc.Name != child.Name || svc.Namespace != "openstack" || svc.Labels["c5c3.io/keystoneservice-name"] != "workflow" {
		t.Fatalf("object meta %+v", svc.ObjectMeta)
	}
	if svc.Spec.ManagementPolicy != orcv1alpha1.ManagementPolicyManaged || svc.Spec.Import != nil ||
		svc.Spec.Resource == nil || svc.Spec.Resource.Type != "workflow" || svc.Spec.ManagedOptions != nil ||
		svc.Spec.CloudCredentialsRef != child.Credentials {
		t.Fatalf("spec %+v", svc.Spec)
	}
	c := child
	c.OnDelete = orcv1alpha1.OnDeleteDetach
	u := ManagedUser(c, orcv1alpha1.UserResourceSpec{PasswordRef: ptr.To(orcv1alpha1.KubernetesNameRef("pw-v1"))})
	if u.Kind != "User" || u.Spec.ManagedOptions == nil || u.Spec.ManagedOptions.OnDelete != orcv1alpha1.OnDeleteDetach ||
		*u.Spec.Resource.PasswordRef != "pw-v1" {
		t.Fatalf("user %+v", u)
	}
	for kind, got := range map[string]string{
		"Endpoint": ManagedEndpoint(child, orcv1alpha1.EndpointResourceSpec{URL: "http://x", Interface: "public", ServiceRef: "s"}).Kind,
		"Project":  ManagedProject(child, orcv1alpha1.ProjectResourceSpec{}).Kind,
		"Role":     ManagedRole(child, orcv1alpha1.RoleResourceSpec{}).Kind,
		"Domain":   ManagedDomain(child, orcv1alpha1.DomainResourceSpec{}).Kind,
	} {
		if got != kind {
			t.Errorf("kind %s, want %s", got, kind)
		}
	}
}

func TestImportBuilders(t *testing.T) {
	p := ServiceProbe(child, "workflow", "workflow")
	if p.Spec.ManagementPolicy != orcv1alpha1.ManagementPolicyUnmanaged || p.Spec.Resource != nil || p.Spec.Import == nil ||
		p.Spec.Import.ID != nil || *p.Spec.Import.Filter.Name != "workflow" || *p.Spec.Import.Filter.Type != "workflow" {
		t.Fatalf("service probe %+v", p.Spec)
	}
	u := UserProbe(child, "workflow", "cp-domain-default")
	if u.Spec.ManagementPolicy != orcv1alpha1.ManagementPolicyUnmanaged || *u.Spec.Import.Filter.Name != "workflow" ||
		*u.Spec.Import.Filter.DomainRef != "cp-domain-default" {
		t.Fatalf("user probe %+v", u.Spec)
	}
	if UserProbe(child, "x", "").Spec.Import.Filter.DomainRef != nil {
		t.Fatal("empty domainRef set")
	}
	pr := ProjectProbe(child, "service-workflow", "d")
	if *pr.Spec.Import.Filter.Name != "service-workflow" || *pr.Spec.Import.Filter.DomainRef != "d" {
		t.Fatalf("project probe %+v", pr.Spec)
	}
	r := RoleImportByName(child, "service")
	if r.Spec.ManagementPolicy != orcv1alpha1.ManagementPolicyUnmanaged || *r.Spec.Import.Filter.Name != "service" || r.Spec.Import.Filter.DomainRef != nil {
		t.Fatalf("role import %+v", r.Spec)
	}
	d := DomainImportByName(child, "Default")
	if d.Kind != "Domain" || *d.Spec.Import.Filter.Name != "Default" {
		t.Fatalf("domain import %+v", d.Spec)
	}
	e := ImportEndpoint(child, orcv1alpha1.EndpointFilter{Interface: "public"})
	if e.Spec.Import.Filter.Interface != "public" || e.Spec.ManagementPolicy != orcv1alpha1.ManagementPolicyUnmanaged {
		t.Fatalf("endpoint import %+v", e.Spec)
	}
}

// TestKindTable checks every row of the per-kind table: its Kind, that a
// managed child carries resource and OnDelete but no import, and that an
// import carries the filter but neither resource nor managedOptions (K-ORC
// never deletes an unmanaged resource).
func TestKindTable(t *testing.T) {
	c := child
	c.OnDelete = orcv1alpha1.OnDeleteDetach
	type shape struct {
		kind, policy      string
		resource, options bool
		imp               bool
	}
	spec := func(kind string, p orcv1alpha1.ManagementPolicy, resource, imp bool, o *orcv1alpha1.ManagedOptions) shape {
		return shape{kind, string(p), resource, o != nil && o.OnDelete == orcv1alpha1.OnDeleteDetach, imp}
	}
	ms, is := ManagedService(c, orcv1alpha1.ServiceResourceSpec{}), ImportService(c, orcv1alpha1.ServiceFilter{})
	me, ie := ManagedEndpoint(c, orcv1alpha1.EndpointResourceSpec{}), ImportEndpoint(c, orcv1alpha1.EndpointFilter{})
	mu, iu := ManagedUser(c, orcv1alpha1.UserResourceSpec{}), ImportUser(c, orcv1alpha1.UserFilter{})
	mp, ip := ManagedProject(c, orcv1alpha1.ProjectResourceSpec{}), ImportProject(c, orcv1alpha1.ProjectFilter{})
	mr, ir := ManagedRole(c, orcv1alpha1.RoleResourceSpec{}), ImportRole(c, orcv1alpha1.RoleFilter{})
	md, id := ManagedDomain(c, orcv1alpha1.DomainResourceSpec{}), ImportDomain(c, orcv1alpha1.DomainFilter{})
	got := map[string][2]shape{
		"Service": {spec(ms.Kind, ms.Spec.ManagementPolicy, ms.Spec.Resource != nil, ms.Spec.Import != nil, ms.Spec.ManagedOptions),
			spec(is.Kind, is.Spec.ManagementPolicy, is.Spec.Resource != nil, is.Spec.Import != nil && is.Spec.Import.Filter != nil, is.Spec.ManagedOptions)},
		"Endpoint": {spec(me.Kind, me.Spec.ManagementPolicy, me.Spec.Resource != nil, me.Spec.Import != nil, me.Spec.ManagedOptions),
			spec(ie.Kind, ie.Spec.ManagementPolicy, ie.Spec.Resource != nil, ie.Spec.Import != nil && ie.Spec.Import.Filter != nil, ie.Spec.ManagedOptions)},
		"User": {spec(mu.Kind, mu.Spec.ManagementPolicy, mu.Spec.Resource != nil, mu.Spec.Import != nil, mu.Spec.ManagedOptions),
			spec(iu.Kind, iu.Spec.ManagementPolicy, iu.Spec.Resource != nil, iu.Spec.Import != nil && iu.Spec.Import.Filter != nil, iu.Spec.ManagedOptions)},
		"Project": {spec(mp.Kind, mp.Spec.ManagementPolicy, mp.Spec.Resource != nil, mp.Spec.Import != nil, mp.Spec.ManagedOptions),
			spec(ip.Kind, ip.Spec.ManagementPolicy, ip.Spec.Resource != nil, ip.Spec.Import != nil && ip.Spec.Import.Filter != nil, ip.Spec.ManagedOptions)},
		"Role": {spec(mr.Kind, mr.Spec.ManagementPolicy, mr.Spec.Resource != nil, mr.Spec.Import != nil, mr.Spec.ManagedOptions),
			spec(ir.Kind, ir.Spec.ManagementPolicy, ir.Spec.Resource != nil, ir.Spec.Import != nil && ir.Spec.Import.Filter != nil, ir.Spec.ManagedOptions)},
		"Domain": {spec(md.Kind, md.Spec.ManagementPolicy, md.Spec.Resource != nil, md.Spec.Import != nil, md.Spec.ManagedOptions),
			spec(id.Kind, id.Spec.ManagementPolicy, id.Spec.Resource != nil, id.Spec.Import != nil && id.Spec.Import.Filter != nil, id.Spec.ManagedOptions)},
	}
	for kind, g := range got {
		managed := shape{kind: kind, policy: string(orcv1alpha1.ManagementPolicyManaged), resource: true, options: true}
		imported := shape{kind: kind, policy: string(orcv1alpha1.ManagementPolicyUnmanaged), imp: true}
		if g[0] != managed {
			t.Errorf("%s managed: %+v, want %+v", kind, g[0], managed)
		}
		if g[1] != imported {
			t.Errorf("%s import: %+v, want %+v", kind, g[1], imported)
		}
	}
}
