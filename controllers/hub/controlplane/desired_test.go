package controlplane

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
)

func plane(mut func(*c5c3v1alpha1.ControlPlane)) *c5c3v1alpha1.ControlPlane {
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "openstack"}}
	if mut != nil {
		mut(cp)
	}
	return cp
}

func TestAuthURLAndEndpointType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		cp         *c5c3v1alpha1.ControlPlane
		url, iface string
	}{
		{"managed default", plane(nil), "http://cp-keystone.openstack.svc:5000/v3", "internal"},
		{"managed dedicated namespace", plane(func(cp *c5c3v1alpha1.ControlPlane) {
			cp.Spec.Services.Keystone = &c5c3v1alpha1.ServiceKeystoneSpec{Namespace: &c5c3v1alpha1.ServiceNamespaceSpec{Name: "ks"}}
		}), "http://cp-keystone.ks.svc:5000/v3", "internal"},
		{"external default interface", plane(func(cp *c5c3v1alpha1.ControlPlane) {
			cp.Spec.Services.Keystone = &c5c3v1alpha1.ServiceKeystoneSpec{Mode: c5c3v1alpha1.KeystoneModeExternal,
				External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: "https://k.example/v3"}}
		}), "https://k.example/v3", "public"},
		{"external internal interface", plane(func(cp *c5c3v1alpha1.ControlPlane) {
			cp.Spec.Services.Keystone = &c5c3v1alpha1.ServiceKeystoneSpec{Mode: c5c3v1alpha1.KeystoneModeExternal,
				External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: "https://k.example/v3", EndpointType: "internal"}}
		}), "https://k.example/v3", "internal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := AuthURL(tc.cp); got != tc.url {
				t.Errorf("AuthURL = %q, want %q", got, tc.url)
			}
			if got := EndpointType(tc.cp); got != tc.iface {
				t.Errorf("EndpointType = %q, want %q", got, tc.iface)
			}
		})
	}
}

func TestConsentedNamespaces(t *testing.T) {
	t.Parallel()
	cp := plane(func(cp *c5c3v1alpha1.ControlPlane) {
		cp.Spec.Services.Keystone = &c5c3v1alpha1.ServiceKeystoneSpec{Namespace: &c5c3v1alpha1.ServiceNamespaceSpec{Name: "ks"}}
		cp.Spec.Services.Horizon = &c5c3v1alpha1.ServiceHorizonSpec{Namespace: &c5c3v1alpha1.ServiceNamespaceSpec{Name: "horizon"}}
		cp.Spec.KORC.ServiceRegistrations.AllowedNamespaces = []string{"team-a", "ks", "openstack"}
	})
	want := []string{"horizon", "ks", "openstack", "team-a"}
	if got := ConsentedNamespaces(cp); !slices.Equal(got, want) {
		t.Errorf("ConsentedNamespaces = %v, want %v", got, want)
	}
}

func TestStoreNameAndSecrets(t *testing.T) {
	t.Parallel()
	if n, ok := StoreName(plane(nil)); !ok || n != DefaultTenantStoreName {
		t.Errorf("default store = %q %v", n, ok)
	}
	if _, ok := StoreName(plane(func(cp *c5c3v1alpha1.ControlPlane) {
		cp.Spec.SecretStoreRef = &c5c3v1alpha1.SecretStoreRefSpec{Kind: "ClusterSecretStore", Name: "c"}
	})); ok {
		t.Error("a ClusterSecretStore ref must provision no namespaced store")
	}
	if got := CloudsSecretNames(plane(nil)); !slices.Equal(got, []string{"k-orc-clouds-yaml", "cp-admin-password-cloud"}) {
		t.Errorf("CloudsSecretNames = %v", got)
	}
	if d := DomainImport(plane(nil)); d.Name != "cp-domain-default" || d.Spec.CloudCredentialsRef.SecretName != "k-orc-clouds-yaml" {
		t.Errorf("DomainImport = %s via %s", d.Name, d.Spec.CloudCredentialsRef.SecretName)
	}
}

func TestPasswordCloudValidates(t *testing.T) {
	t.Parallel()
	c := PasswordCloud(plane(nil), "pw")
	if err := cloudsyaml.Validate(c); err != nil {
		t.Fatal(err)
	}
	if c.EndpointType != "internal" || c.RegionName != "RegionOne" || c.AuthInfo.ProjectName != "admin" || c.AuthInfo.UserDomainName != "Default" {
		t.Errorf("cloud = %+v", c)
	}
}

// TestDomainOr: the order's domain wins, then the plane's admin domain, and
// with no plane (a deletion that outlives it) DefaultAdminDomain.
func TestDomainOr(t *testing.T) {
	t.Parallel()
	custom := plane(func(cp *c5c3v1alpha1.ControlPlane) { cp.Spec.KORC.AdminCredential.DomainName = "Ops" })
	tests := []struct {
		name, domain string
		cp           *c5c3v1alpha1.ControlPlane
		want         string
	}{
		{"order's domain", "Tenant", custom, "Tenant"},
		{"order's domain, no plane", "Tenant", nil, "Tenant"},
		{"plane's admin domain", "", custom, "Ops"},
		{"plane's default admin domain", "", plane(nil), DefaultAdminDomain},
		{"no plane", "", nil, DefaultAdminDomain},
	}
	for _, tc := range tests {
		if got := DomainOr(tc.domain, tc.cp); got != tc.want {
			t.Errorf("%s: DomainOr(%q) = %q, want %q", tc.name, tc.domain, got, tc.want)
		}
	}
}
