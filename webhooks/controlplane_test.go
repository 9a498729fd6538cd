package webhooks

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestControlPlaneValidator_OnePerNamespace(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	existing := &v1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "openstack"}}
	v := ControlPlaneValidator{Reader: fake.NewClientBuilder().WithScheme(scheme).WithObjects(existing).Build()}
	ctx := context.Background()

	second := &v1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp2", Namespace: "openstack"}}
	if _, err := v.ValidateCreate(ctx, second); err == nil || !strings.Contains(err.Error(), `namespace "openstack" already holds ControlPlane "cp"`) {
		t.Fatalf("second ControlPlane: %v", err)
	}
	elsewhere := &v1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "other"}}
	if _, err := v.ValidateCreate(ctx, elsewhere); err != nil {
		t.Fatalf("a ControlPlane in another namespace: %v", err)
	}
	if _, err := v.ValidateUpdate(ctx, existing, existing); err != nil {
		t.Fatalf("update: %v", err)
	}
}

// TestControlPlaneValidator_WarnsOnServiceConsent: consenting namespaces
// for KeystoneServices is warned about as cloud-admin trust, a tenant
// namespace (namespaceAssignments on the management cluster) also
// consented once more by name; an update touching neither list is silent.
func TestControlPlaneValidator_WarnsOnServiceConsent(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	v := ControlPlaneValidator{Reader: fake.NewClientBuilder().WithScheme(scheme).Build()}
	ctx := context.Background()
	cp := &v1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "openstack"}}
	if w, err := v.ValidateCreate(ctx, cp); err != nil || len(w) != 0 {
		t.Fatalf("no consent: warnings %v, %v", w, err)
	}
	cp.Spec.KORC.ServiceRegistrations.AllowedNamespaces = []string{"platform", "tenant-a", "edge-ns"}
	cp.Spec.NamespaceAssignments = []v1.NamespaceAssignment{{Namespace: "tenant-a"}, {Cluster: "edge-1", Namespace: "edge-ns"}}
	w, err := v.ValidateCreate(ctx, cp)
	if err != nil || len(w) != 2 || !strings.Contains(w[0], "[platform, tenant-a, edge-ns]") || !strings.Contains(w[0], "cloud admin") ||
		!strings.Contains(w[1], `namespace "tenant-a" is a tenant namespace`) {
		t.Fatalf("warnings %q, %v", w, err)
	}
	if w, _ := v.ValidateUpdate(ctx, cp, cp.DeepCopy()); len(w) != 0 {
		t.Errorf("an update touching neither list warned: %q", w)
	}
	edited := cp.DeepCopy()
	edited.Spec.KORC.ServiceRegistrations.AllowedNamespaces = []string{"platform"}
	if w, _ := v.ValidateUpdate(ctx, cp, edited); len(w) != 1 {
		t.Errorf("an update of allowedNamespaces: warnings %q, want the consent warning only", w)
	}
}

// TestControlPlaneValidator_NameBound: the plane's name is a label value on
// its objects, so a create over 63 bytes (a generated name counting its 5
// random characters) is refused, and an update of a plane stored before the
// bound is admitted so it can still be torn down.
func TestControlPlaneValidator_NameBound(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	v := ControlPlaneValidator{Reader: fake.NewClientBuilder().WithScheme(scheme).Build()}
	ctx := context.Background()
	for _, tc := range []struct {
		name, generate string
		want           string
	}{
		{name: strings.Repeat("c", 63)},
		{name: strings.Repeat("c", 64), want: "this name is 64 bytes"},
		{generate: strings.Repeat("g", 58)},
		{generate: strings.Repeat("g", 59), want: "this name is 64 bytes"},
	} {
		cp := &v1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: tc.name, GenerateName: tc.generate, Namespace: "openstack"}}
		_, err := v.ValidateCreate(ctx, cp)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("name %d/generateName %d bytes rejected: %v", len(tc.name), len(tc.generate), err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "c5c3.io/controlplane")):
			t.Errorf("name %d/generateName %d bytes: want %q, got %v", len(tc.name), len(tc.generate), tc.want, err)
		}
	}
	stored := &v1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: strings.Repeat("c", 70), Namespace: "openstack"}}
	updated := stored.DeepCopy()
	updated.Finalizers = nil
	if _, err := v.ValidateUpdate(ctx, stored, updated); err != nil {
		t.Fatalf("update of a plane stored before the bound: %v", err)
	}
}
