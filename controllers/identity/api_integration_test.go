//go:build integration

package identity

import (
	"context"
	"sort"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// The CEL rules of RoleAssignment: exactly one subject and exactly one scope
// (project, domain or system; the system is "all").
func TestRoleAssignmentValidation(t *testing.T) {
	user := &kv1.NamedInDomain{Name: "u"}
	group := &kv1.NamedInDomain{Name: "g"}
	project := &kv1.NamedInDomain{Name: "p"}
	domain := &kv1.DomainRef{Name: "d"}
	tests := []struct {
		name    string
		spec    kv1.RoleAssignmentSpec
		wantErr string
	}{
		{"user on project", kv1.RoleAssignmentSpec{User: user, Project: project}, ""},
		{"group on domain", kv1.RoleAssignmentSpec{Group: group, Domain: domain}, ""},
		{"user and group", kv1.RoleAssignmentSpec{User: user, Group: group, Project: project}, "exactly one of user and group"},
		{"no subject", kv1.RoleAssignmentSpec{Project: project}, "exactly one of user and group"},
		{"user on system", kv1.RoleAssignmentSpec{User: user, System: "all"}, ""},
		{"project and domain", kv1.RoleAssignmentSpec{User: user, Project: project, Domain: domain}, "exactly one of project, domain and system"},
		{"project and system", kv1.RoleAssignmentSpec{User: user, Project: project, System: "all"}, "exactly one of project, domain and system"},
		{"domain and system", kv1.RoleAssignmentSpec{Group: group, Domain: domain, System: "all"}, "exactly one of project, domain and system"},
		{"a system other than all", kv1.RoleAssignmentSpec{User: user, System: "other"}, "Unsupported value"},
		{"no scope", kv1.RoleAssignmentSpec{User: user}, "exactly one of project, domain and system"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.Role = kv1.RoleRef{Name: "member"}
			tc.spec.KeystoneRef = &kv1.KeystoneRef{Name: "validation-only"} // not served: no Keystone calls
			ra := &kv1.RoleAssignment{ObjectMeta: metav1.ObjectMeta{Name: "cel-" + string(rune('a'+i)), Namespace: testNS}, Spec: tc.spec}
			err := k8s.Create(context.Background(), ra)
			if err == nil {
				t.Cleanup(func() { _ = k8s.Delete(context.Background(), ra) })
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case tc.wantErr != "" && (err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error = %v, want Invalid mentioning %q", err, tc.wantErr)
			}
		})
	}
}

// Every kind is in the keystone category, so `kubectl get keystone` lists them all.
func TestKeystoneCategoryListsAllKinds(t *testing.T) {
	dc, err := discovery.NewDiscoveryClientForConfig(stack.Kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	rl, err := dc.ServerResourcesForGroupVersion(kv1.GroupVersion.String())
	if err != nil {
		t.Fatal(err)
	}
	var inCategory []string
	for _, r := range rl.APIResources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		for _, c := range r.Categories {
			if c == "keystone" {
				inCategory = append(inCategory, r.Kind)
			}
		}
	}
	sort.Strings(inCategory)
	want := "Domain Endpoint Group IdentityProvider Mapping Project Protocol Role RoleAssignment Service ServiceProvider User"
	if got := strings.Join(inCategory, " "); got != want {
		t.Fatalf("kinds in category keystone: %s, want %s", got, want)
	}
}
