package controlplane

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/eso"
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
	got := Stale([]string{"openstack", "tenant-a"}, found)
	if want := []Placed{{"tenant-b", "openbao-tenant-store"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("de-listed tenant-b: got %v, want %v", got, want)
	}
	if got := Stale(nil, found); !reflect.DeepEqual(got, found) {
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

func TestStoreNotReadyMessage(t *testing.T) {
	t.Parallel()
	ob := OpenBao{AuthMount: "kubernetes", Role: "eso-tenant", ServiceAccount: "eso-tenant-auth"}
	got := StoreNotReadyMessage("openstack", "openbao-tenant-store", ob,
		eso.Condition{Found: true, Status: "False", Reason: "InvalidProviderConfig", Message: "permission denied"})
	for _, want := range []string{"openstack/openbao-tenant-store", "InvalidProviderConfig permission denied",
		"auth/kubernetes", "role eso-tenant", "openstack/eso-tenant-auth", "docs/reference/openbao.md"} {
		if !strings.Contains(got, want) {
			t.Errorf("message %q lacks %q", got, want)
		}
	}
	if got := StoreNotReadyMessage("n", "s", ob, eso.Condition{}); !strings.Contains(got, "not validated it yet") {
		t.Errorf("unvalidated: %q", got)
	}
}

func TestTearingDown(t *testing.T) {
	t.Parallel()
	now := metav1.Now()
	cp := plane(nil) // openstack/cp
	ks := func(ns, ref, refNS string, deleting bool, finalizer string) c5c3v1alpha1.KeystoneService {
		k := c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Name: "k", Namespace: ns}}
		k.Spec.ControlPlaneRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: ref, Namespace: refNS}
		if deleting {
			k.DeletionTimestamp = &now
		}
		if finalizer != "" {
			k.Finalizers = []string{finalizer}
		}
		return k
	}
	fin := c5c3v1alpha1.FinalizerKeystoneServiceTeardown
	got := TearingDown(cp, []c5c3v1alpha1.KeystoneService{
		ks("tenant-b", "cp", "openstack", true, fin),    // counts
		ks("tenant-b", "cp", "openstack", true, fin),    // deduplicated
		ks("openstack", "cp", "", true, fin),            // own namespace, ref namespace defaulted: counts
		ks("tenant-a", "cp", "openstack", false, fin),   // not being deleted
		ks("tenant-c", "cp", "openstack", true, ""),     // finalizer released
		ks("tenant-d", "other", "openstack", true, fin), // another plane
		ks("tenant-e", "cp", "elsewhere", true, fin),    // a plane of that name elsewhere
	})
	if want := []string{"openstack", "tenant-b"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := StoreNamespaces([]string{"openstack", "tenant-a"}, []string{"tenant-b", "openstack"}); !reflect.DeepEqual(got,
		[]string{"openstack", "tenant-a", "tenant-b"}) {
		t.Fatalf("StoreNamespaces %v", got)
	}
}
