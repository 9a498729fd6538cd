package applicationcredential

import (
	"strings"
	"testing"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/korc"
)

func childName(disc string) string { return "o-12345678-applicationcredential-" + disc }

func TestScopeOf(t *testing.T) {
	if s := ScopeOf(&c5c3v1alpha1.KeystoneApplicationCredentialSpec{}, childName); s.RoleRefs != nil || s.AccessRules != nil {
		t.Fatalf("absent roles and rules: %+v, want nil slices (today's unscoped credential)", s)
	}
	spec := &c5c3v1alpha1.KeystoneApplicationCredentialSpec{Roles: []string{"reader", "member"},
		AccessRules: []c5c3v1alpha1.ApplicationCredentialAccessRule{{Service: "compute", Method: "GET", Path: "/v2.1/servers"}}}
	s := ScopeOf(spec, childName)
	if len(s.RoleRefs) != 2 || string(s.RoleRefs[0]) != childName(korc.ScopeRoleDiscriminator("reader")) ||
		string(s.RoleRefs[1]) != childName(korc.ScopeRoleDiscriminator("member")) {
		t.Errorf("role refs %v, want the imports of reader and member in spec order", s.RoleRefs)
	}
	if len(s.AccessRules) != 1 {
		t.Fatalf("access rules %+v", s.AccessRules)
	}
	r := s.AccessRules[0]
	if string(*r.ServiceRef) != childName(korc.ScopeServiceDiscriminator("compute")) || *r.Method != orcv1alpha1.HTTPMethodGET || *r.Path != "/v2.1/servers" {
		t.Errorf("access rule %s %s %s", *r.ServiceRef, *r.Method, *r.Path)
	}
}

func TestScopeDiffers(t *testing.T) {
	spec := &c5c3v1alpha1.KeystoneApplicationCredentialSpec{Roles: []string{"reader"},
		AccessRules: []c5c3v1alpha1.ApplicationCredentialAccessRule{{Service: "identity", Method: "GET", Path: "/v3/users"}}}
	want := ScopeOf(spec, childName)
	same := &orcv1alpha1.ApplicationCredentialResourceSpec{RoleRefs: want.RoleRefs, AccessRules: want.AccessRules}
	other := *spec
	other.Roles = []string{"member"}
	rules := *spec
	rules.AccessRules = []c5c3v1alpha1.ApplicationCredentialAccessRule{{Service: "identity", Method: "POST", Path: "/v3/users"}}
	for _, tc := range []struct {
		name string
		res  *orcv1alpha1.ApplicationCredentialResourceSpec
		s    Scope
		want bool
	}{
		{"unscoped child, unscoped spec", &orcv1alpha1.ApplicationCredentialResourceSpec{}, Scope{}, false},
		{"empty lists equal absent ones", &orcv1alpha1.ApplicationCredentialResourceSpec{RoleRefs: []orcv1alpha1.KubernetesNameRef{}}, Scope{}, false},
		{"no resource, unscoped", nil, Scope{}, false},
		{"same scope", same, want, false},
		{"roles added", &orcv1alpha1.ApplicationCredentialResourceSpec{}, want, true},
		{"roles removed", same, Scope{AccessRules: want.AccessRules}, true},
		{"role changed", same, ScopeOf(&other, childName), true},
		{"method changed", same, ScopeOf(&rules, childName), true},
		{"no resource, scoped", nil, want, true},
	} {
		if got := ScopeDiffers(tc.res, tc.s); got != tc.want {
			t.Errorf("%s: ScopeDiffers = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRoleRefusal(t *testing.T) {
	if g := RoleRefusal([]string{"reader"}, []string{"member", "reader"}, "u", "p"); !g.Passed() {
		t.Errorf("held roles refused: %+v", g)
	}
	if g := RoleRefusal(nil, nil, "u", "p"); !g.Passed() {
		t.Errorf("no roles ordered refused: %+v", g)
	}
	g := RoleRefusal([]string{"reader", "admin", "Member"}, []string{"member", "reader"}, "u", "p")
	if g.Reason != c5c3v1alpha1.ReasonRoleNotHeld {
		t.Fatalf("reason %q, want RoleNotHeld", g.Reason)
	}
	for _, want := range []string{`"admin", "Member"`, "KeystoneUser u", "KeystoneProject p", `holds "member", "reader"`, "remove it from spec.roles"} {
		if !strings.Contains(g.Message, want) {
			t.Errorf("message %q lacks %q", g.Message, want)
		}
	}
	if strings.Contains(g.Message, `"reader", "admin"`) {
		t.Errorf("message names a held role as missing: %q", g.Message)
	}
}

// TestDecide_ScopeChangeRotates: a changed scope rotates like a raised
// generation, after it in precedence, and waits out a grace period.
func TestDecide_ScopeChangeRotates(t *testing.T) {
	in := steady(t0.Add(time.Hour))
	in.ScopeChanged = true
	if d := Decide(in); d.Action != ActionCreate || d.Trigger != TriggerScope || d.Generation != 2 {
		t.Errorf("scope changed: %+v, want Create generation 2 (ScopeChanged)", d)
	}
	in.Desired = 5
	if d := Decide(in); d.Trigger != TriggerGeneration || d.Generation != 5 {
		t.Errorf("scope changed and generation raised: %+v, want GenerationRaised to 5", d)
	}
	g := inGrace(t0.Add(721 * time.Hour))
	g.ScopeChanged = true
	if d := Decide(g); d.Action != ActionDeferred || d.Trigger != TriggerScope {
		t.Errorf("scope changed in a grace period: %+v, want Deferred", d)
	}
}
