package controlplane

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestTenantStore(t *testing.T) {
	t.Parallel()
	ob := OpenBao{Address: "http://bao:8200", Mount: "kv-v2", AuthMount: "kubernetes", Role: "eso-tenant",
		ServiceAccount: "eso-tenant-auth"}
	s := TenantStore(plane(nil), ob, "openbao-tenant-store", "tenant-a")
	u, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	auth, _, _ := unstructured.NestedMap(u.Object, "spec", "provider", "vault", "auth")
	want := map[string]any{"kubernetes": map[string]any{"mountPath": "kubernetes", "role": "eso-tenant",
		"serviceAccountRef": map[string]any{"name": "eso-tenant-auth"}}}
	if !reflect.DeepEqual(auth, want) {
		t.Fatalf("auth %v", auth)
	}
	if s.TokenSecretName != "" || s.Namespace != "tenant-a" || s.Labels[LabelControlPlane] != "cp" ||
		s.Labels[LabelControlPlaneNamespace] != "openstack" {
		t.Fatalf("store %+v", s)
	}
}

func TestStale(t *testing.T) {
	t.Parallel()
	found := []Placed{{"openstack", "openbao-tenant-store"}, {"tenant-a", "openbao-tenant-store"},
		{"tenant-b", "openbao-tenant-store"}, {"tenant-a", "old-store"}}
	consented := []string{"openstack", "tenant-a"}
	tests := []struct {
		name string
		want string
		got  []Placed
	}{
		{"de-listed and renamed", "openbao-tenant-store",
			[]Placed{{"tenant-b", "openbao-tenant-store"}, {"tenant-a", "old-store"}}},
		{"cluster store: everything", "", found},
	}
	for _, tc := range tests {
		if got := Stale(consented, tc.want, found); !reflect.DeepEqual(got, tc.got) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.got)
		}
	}
	if got := Stale(nil, "x", found); len(got) != len(found) {
		t.Errorf("no consented namespace: %v", got)
	}
}

func TestIsLegacyTokenCopy(t *testing.T) {
	t.Parallel()
	cp := plane(func(cp *c5c3v1alpha1.ControlPlane) {
		cp.Spec.KORC.AdminCredential.CloudCredentialsRef.SecretName = "admin-token"
	})
	for s, want := range map[Placed]bool{
		{"tenant-a", "openbao-tenant-store-token"}:  true,
		{"openstack", "openbao-tenant-store-token"}: true,
		{"openstack", "admin-token"}:                false, // the plane's clouds.yaml Secret
		{"tenant-a", "admin-token"}:                 true,  // not a clouds Secret outside the plane namespace
		{"openstack", "cp-admin-password-cloud"}:    false,
		{"tenant-a", "something"}:                   false,
	} {
		if got := IsLegacyTokenCopy(cp, s); got != want {
			t.Errorf("%v: got %v, want %v", s, got, want)
		}
	}
}
