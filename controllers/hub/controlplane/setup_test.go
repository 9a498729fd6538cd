package controlplane

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// A Secret wakes the planes that read or write it, and the plane its labels
// name; an order's Secret in the plane's namespace wakes none.
func TestPlanesOfSecret(t *testing.T) {
	t.Parallel()
	s := runtime.NewScheme()
	if err := c5c3v1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	cp := plane(func(cp *c5c3v1alpha1.ControlPlane) {
		cp.Spec.Services.Keystone = &c5c3v1alpha1.ServiceKeystoneSpec{Mode: c5c3v1alpha1.KeystoneModeExternal,
			External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: "https://keystone/v3",
				CABundleSecretRef: &c5c3v1alpha1.SecretRefSpec{Name: "keystone-ca"}}}
	})
	other := plane(func(cp *c5c3v1alpha1.ControlPlane) {
		cp.Name = "second"
		cp.Spec.KORC.AdminCredential.PasswordSecretRef.Name = "second-admin"
	})
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(cp, other).Build()
	req := func(name string) reconcile.Request {
		return reconcile.Request{NamespacedName: client.ObjectKey{Namespace: "openstack", Name: name}}
	}
	secret := func(ns, name string, labels map[string]string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
	}
	for _, tc := range []struct {
		what   string
		secret *corev1.Secret
		want   []reconcile.Request
	}{
		{"the admin password", secret("openstack", DefaultPasswordSecret, nil), []reconcile.Request{req("cp")}},
		{"the second plane's admin password", secret("openstack", "second-admin", nil), []reconcile.Request{req("second")}},
		{"the CA bundle", secret("openstack", "keystone-ca", nil), []reconcile.Request{req("cp")}},
		{"the admin clouds.yaml both planes name", secret("openstack", DefaultCloudsSecret, nil), []reconcile.Request{req("cp"), req("second")}},
		{"a labelled copy elsewhere", secret("tenant-a", "cp-token", Labels(cp)), []reconcile.Request{req("cp")}},
		{"a labelled Secret of its own, named too", secret("openstack", DefaultCloudsSecret, Labels(cp)), []reconcile.Request{req("cp"), req("second")}},
		{"an order's Secret in the plane's namespace", secret("openstack", "u-0-1d02b078-user-source", nil), nil},
		{"the admin password's name in another namespace", secret("tenant-a", DefaultPasswordSecret, nil), nil},
	} {
		got := planesOfSecret(c)(context.Background(), tc.secret)
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: requests %v, want %v", tc.what, got, tc.want)
		}
	}
}
