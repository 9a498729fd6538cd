package identity

import (
	"reflect"
	"testing"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// TestSpecKind: kind is the Kind each actuator reported before specKind, and
// spec is the object's Spec.
func TestSpecKind(t *testing.T) {
	check := func(kind, want string, spec, wantSpec any) {
		t.Helper()
		if kind != want {
			t.Errorf("kind() = %q, want %q", kind, want)
		}
		if !reflect.DeepEqual(spec, wantSpec) {
			t.Errorf("%s: spec() = %#v, want %#v", want, spec, wantSpec)
		}
	}
	d := &kv1.Domain{Spec: kv1.DomainSpec{Name: "d", Description: "x"}}
	check(domainActuator{}.kind(), "Domain", domainActuator{}.spec(d), d.Spec)
	p := &kv1.Project{Spec: kv1.ProjectSpec{Name: "p", Domain: "d"}}
	check(projectActuator{}.kind(), "Project", projectActuator{}.spec(p), p.Spec)
	g := &kv1.Group{Spec: kv1.GroupSpec{Name: "g"}}
	check(groupActuator{}.kind(), "Group", groupActuator{}.spec(g), g.Spec)
	r := &kv1.Role{Spec: kv1.RoleSpec{Name: "r"}}
	check(roleActuator{}.kind(), "Role", roleActuator{}.spec(r), r.Spec)
	s := &kv1.Service{Spec: kv1.ServiceSpec{Name: "s", Type: "t"}}
	check(serviceActuator{}.kind(), "Service", serviceActuator{}.spec(s), s.Spec)
	ra := &kv1.RoleAssignment{Spec: kv1.RoleAssignmentSpec{Role: kv1.RoleRef{Name: "r"}}}
	check(roleAssignmentActuator{}.kind(), "RoleAssignment", roleAssignmentActuator{}.spec(ra), ra.Spec)
	idp := &kv1.IdentityProvider{Spec: kv1.IdentityProviderSpec{Description: "i"}}
	check(identityProviderActuator{}.kind(), "IdentityProvider", identityProviderActuator{}.spec(idp), idp.Spec)
	m := &kv1.Mapping{}
	check(mappingActuator{}.kind(), "Mapping", mappingActuator{}.spec(m), m.Spec)
	pr := &kv1.Protocol{Spec: kv1.ProtocolSpec{Mapping: "m"}}
	check(protocolActuator{}.kind(), "Protocol", protocolActuator{}.spec(pr), pr.Spec)
	sp := &kv1.ServiceProvider{Spec: kv1.ServiceProviderSpec{AuthURL: "u"}}
	check(serviceProviderActuator{}.kind(), "ServiceProvider", serviceProviderActuator{}.spec(sp), sp.Spec)
	if in, err := (domainActuator{}).inputs(t.Context(), nil, d); in != nil || err != nil {
		t.Errorf("inputs() = %v, %v; want none", in, err)
	}
}
