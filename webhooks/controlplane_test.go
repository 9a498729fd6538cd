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
