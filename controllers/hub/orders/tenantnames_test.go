package orders

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestTenantNameGate(t *testing.T) {
	t.Parallel()
	listed := &c5c3v1alpha1.NamespaceAssignment{Namespace: "tenant-a", Domains: []c5c3v1alpha1.KeystoneName{"tenants", "Acme"}}
	prefixed := &c5c3v1alpha1.NamespaceAssignment{Namespace: "tenant-a", NamePrefix: "acme-"}
	both := &c5c3v1alpha1.NamespaceAssignment{Namespace: "tenant-a", Domains: []c5c3v1alpha1.KeystoneName{"tenants"}, NamePrefix: "acme-"}
	unlisted := &c5c3v1alpha1.NamespaceAssignment{Namespace: "tenant-a"}
	adminListed := &c5c3v1alpha1.NamespaceAssignment{Namespace: "tenant-a", Domains: []c5c3v1alpha1.KeystoneName{"Default"}}
	closed := []string{"Default", "service"} // the admin domain, a service account domain
	for _, tc := range []struct {
		name         string
		a            *c5c3v1alpha1.NamespaceAssignment
		kind, domain string
		obj          string
		reason       string
	}{
		{"no assignment passes (GateOf decides)", nil, KindKeystoneUser, "Default", "x", ""},
		{"absent domains: another domain", unlisted, KindKeystoneUser, "tenants", "x", ""},
		{"absent domains: the admin domain is closed", unlisted, KindKeystoneUser, "Default", "x", c5c3v1alpha1.ReasonTenantDomainNotAllowed},
		{"absent domains: the admin domain as Keystone folds it", unlisted, KindKeystoneProject, "DEFAULT", "x", c5c3v1alpha1.ReasonTenantDomainNotAllowed},
		{"absent domains: a service account domain is closed", unlisted, KindKeystoneProject, "service", "x", c5c3v1alpha1.ReasonTenantDomainNotAllowed},
		{"the admin domain, listed", adminListed, KindKeystoneUser, "Default", "x", ""},
		{"a service account domain, listed", &c5c3v1alpha1.NamespaceAssignment{Namespace: "tenant-a", Domains: []c5c3v1alpha1.KeystoneName{"service"}}, KindKeystoneUser, "service", "x", ""},
		{"a listed domain", listed, KindKeystoneUser, "tenants", "x", ""},
		{"a listed domain matches exactly: another case is another domain", listed, KindKeystoneProject, "ACME", "x", c5c3v1alpha1.ReasonTenantDomainNotAllowed},
		{"a listed domain matches exactly: an accent variant is another domain", listed, KindKeystoneUser, "Acmé", "x", c5c3v1alpha1.ReasonTenantDomainNotAllowed},
		{"a listed domain as spelled", listed, KindKeystoneProject, "Acme", "x", ""},
		{"the admin domain, not listed", listed, KindKeystoneUser, "Default", "x", c5c3v1alpha1.ReasonTenantDomainNotAllowed},
		{"a service domain, not listed", listed, KindKeystoneProject, "service", "x", c5c3v1alpha1.ReasonTenantDomainNotAllowed},
		{"the prefix", prefixed, KindKeystoneUser, "tenants", "acme-reports", ""},
		{"no prefix", prefixed, KindKeystoneUser, "tenants", "reports", c5c3v1alpha1.ReasonTenantNamePrefix},
		{"the prefix is case-sensitive", prefixed, KindKeystoneProject, "tenants", "ACME-reports", c5c3v1alpha1.ReasonTenantNamePrefix},
		{"the closed domain is decided before the prefix", prefixed, KindKeystoneUser, "Default", "reports", c5c3v1alpha1.ReasonTenantDomainNotAllowed},
		{"the domain is decided first", both, KindKeystoneUser, "Default", "reports", c5c3v1alpha1.ReasonTenantDomainNotAllowed},
		{"both rules met", both, KindKeystoneUser, "tenants", "acme-reports", ""},
	} {
		g := TenantNameGate(tc.a, closed, tc.kind, tc.domain, tc.obj)
		if g.Reason != tc.reason {
			t.Errorf("%s: reason %q, want %q (%s)", tc.name, g.Reason, tc.reason, g.Message)
		}
		if g.Reason != "" && g.Message == "" {
			t.Errorf("%s: a closed gate without a message", tc.name)
		}
	}
	g := TenantNameGate(prefixed, closed, KindKeystoneProject, "tenants", "reports")
	if want := `spec.projectName`; !strings.Contains(g.Message, want) {
		t.Errorf("the prefix remedy of a project names %s: %s", want, g.Message)
	}
	g = TenantNameGate(unlisted, closed, KindKeystoneUser, "service", "x")
	if want := `spec.namespaceAssignments[].domains`; !strings.Contains(g.Message, want) {
		t.Errorf("the closed-domain remedy names %s: %s", want, g.Message)
	}
}

func TestClosedDomainsOf(t *testing.T) {
	t.Parallel()
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: "openstack", Name: "plane"}}
	ks := func(ns, plane, planeNS, domain string, account bool) c5c3v1alpha1.KeystoneService {
		k := c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "svc"},
			Spec: c5c3v1alpha1.KeystoneServiceSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: plane, Namespace: planeNS}}}
		if account {
			k.Spec.Account = &c5c3v1alpha1.KeystoneServiceAccountSpec{DomainName: c5c3v1alpha1.KeystoneName(domain)}
		}
		return k
	}
	got := closedDomainsOf(cp, []c5c3v1alpha1.KeystoneService{
		ks("openstack", "plane", "", "service", true),      // own namespace
		ks("glance", "plane", "openstack", "images", true), // another namespace
		ks("openstack", "plane", "", "", true),             // the admin domain
		ks("openstack", "other", "", "other", true),        // another plane
		ks("glance", "plane", "", "elsewhere", true),       // a plane of the same name elsewhere
		ks("openstack", "plane", "", "", false),            // catalog only
	})
	want := []string{"Default", "service", "images"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("closed domains %v, want %v", got, want)
	}
	cp.Spec.KORC.AdminCredential.DomainName = "admins"
	if got := closedDomainsOf(cp, nil); len(got) != 1 || got[0] != "admins" {
		t.Errorf("closed domains %v, want the declared admin domain", got)
	}
}
