package applicationcredential

import (
	"fmt"
	"slices"
	"strings"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	"k8s.io/apimachinery/pkg/api/equality"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/korc"
)

// Scope is the K-ORC form of spec.roles and spec.accessRules
// (docs/reference/keystoneapplicationcredential.md, "Scope"): role and
// service references name the order's imports child(disc); nil slices
// when the spec leaves them out.
type Scope struct {
	RoleRefs    []orcv1alpha1.KubernetesNameRef
	AccessRules []orcv1alpha1.ApplicationCredentialAccessRule
}

// ScopeOf builds the Scope of spec in spec order; child maps a
// discriminator (korc.ScopeRoleDiscriminator, korc.ScopeServiceDiscriminator)
// to the order's child name.
func ScopeOf(spec *c5c3v1alpha1.KeystoneApplicationCredentialSpec, child func(disc string) string) Scope {
	var s Scope
	for _, r := range spec.Roles {
		s.RoleRefs = append(s.RoleRefs, orcv1alpha1.KubernetesNameRef(child(korc.ScopeRoleDiscriminator(r))))
	}
	for _, a := range spec.AccessRules {
		svc := orcv1alpha1.KubernetesNameRef(child(korc.ScopeServiceDiscriminator(a.Service)))
		m, path := orcv1alpha1.HTTPMethod(a.Method), a.Path
		s.AccessRules = append(s.AccessRules, orcv1alpha1.ApplicationCredentialAccessRule{
			ServiceRef: &svc, Method: &m, Path: &path})
	}
	return s
}

// ScopeDiffers reports whether the K-ORC resource spec r was created with
// another scope than s; an empty list equals an absent one.
func ScopeDiffers(r *orcv1alpha1.ApplicationCredentialResourceSpec, s Scope) bool {
	if r == nil {
		return len(s.RoleRefs) > 0 || len(s.AccessRules) > 0
	}
	sameRoles := len(r.RoleRefs) == 0 && len(s.RoleRefs) == 0 || equality.Semantic.DeepEqual(r.RoleRefs, s.RoleRefs)
	sameRules := len(r.AccessRules) == 0 && len(s.AccessRules) == 0 || equality.Semantic.DeepEqual(r.AccessRules, s.AccessRules)
	return !sameRoles || !sameRules
}

// RoleRefusal is the ReasonRoleNotHeld refusal naming every role of want
// that held (the roles Keystone reports for the user on the project, names
// compared exactly) lacks; Passed when held covers want.
func RoleRefusal(want, held []string, user, project string) conditions.Gate {
	var missing []string
	for _, r := range want {
		if !slices.Contains(held, r) {
			missing = append(missing, r)
		}
	}
	if len(missing) == 0 {
		return conditions.Gate{}
	}
	return conditions.Gate{Reason: c5c3v1alpha1.ReasonRoleNotHeld, Message: fmt.Sprintf(
		"spec.roles names %s, which KeystoneUser %s does not hold on KeystoneProject %s in Keystone (it holds %s): "+
			"remove it from spec.roles or assign it with a KeystoneRoleAssignment; no credential with this scope is created",
		quoted(missing), user, project, quoted(held))}
}

func quoted(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
