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
