package orders

import (
	"strings"
	"testing"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestTenantNameGate(t *testing.T) {
	t.Parallel()
	listed := &c5c3v1alpha1.NamespaceAssignment{Namespace: "tenant-a", Domains: []c5c3v1alpha1.KeystoneName{"tenants", "Acme"}}
	prefixed := &c5c3v1alpha1.NamespaceAssignment{Namespace: "tenant-a", NamePrefix: "acme-"}
	both := &c5c3v1alpha1.NamespaceAssignment{Namespace: "tenant-a", Domains: []c5c3v1alpha1.KeystoneName{"tenants"}, NamePrefix: "acme-"}
	for _, tc := range []struct {
		name         string
		a            *c5c3v1alpha1.NamespaceAssignment
		kind, domain string
		obj          string
		reason       string
	}{
		{"no assignment passes (GateOf decides)", nil, KindKeystoneUser, "Default", "x", ""},
		{"absent domains and prefix: any domain (compatibility)", &c5c3v1alpha1.NamespaceAssignment{Namespace: "tenant-a"}, KindKeystoneUser, "Default", "x", ""},
		{"a listed domain", listed, KindKeystoneUser, "tenants", "x", ""},
		{"a listed domain as Keystone folds it", listed, KindKeystoneProject, "ACME", "x", ""},
		{"the admin domain, not listed", listed, KindKeystoneUser, "Default", "x", c5c3v1alpha1.ReasonTenantDomainNotAllowed},
		{"a service domain, not listed", listed, KindKeystoneProject, "service", "x", c5c3v1alpha1.ReasonTenantDomainNotAllowed},
		{"the prefix", prefixed, KindKeystoneUser, "Default", "acme-reports", ""},
		{"no prefix", prefixed, KindKeystoneUser, "Default", "reports", c5c3v1alpha1.ReasonTenantNamePrefix},
		{"the prefix is case-sensitive", prefixed, KindKeystoneProject, "Default", "ACME-reports", c5c3v1alpha1.ReasonTenantNamePrefix},
		{"the domain is decided first", both, KindKeystoneUser, "Default", "reports", c5c3v1alpha1.ReasonTenantDomainNotAllowed},
		{"both rules met", both, KindKeystoneUser, "tenants", "acme-reports", ""},
	} {
		g := TenantNameGate(tc.a, tc.kind, tc.domain, tc.obj)
		if g.Reason != tc.reason {
			t.Errorf("%s: reason %q, want %q (%s)", tc.name, g.Reason, tc.reason, g.Message)
		}
		if g.Reason != "" && g.Message == "" {
			t.Errorf("%s: a closed gate without a message", tc.name)
		}
	}
	g := TenantNameGate(prefixed, KindKeystoneProject, "Default", "reports")
	if want := `spec.projectName`; !strings.Contains(g.Message, want) {
		t.Errorf("the prefix remedy of a project names %s: %s", want, g.Message)
	}
}
