package main

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// The hub's cache drops managed fields from every type but Secrets, whose
// field managers delivery reads.
func TestHubCacheKeepsManagedFieldsOfSecretsOnly(t *testing.T) {
	var o ctrl.Options
	o.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{"tenant": {}}}
	withManagedFieldsOfSecretsOnly(&o)
	if _, ok := o.Cache.DefaultNamespaces["tenant"]; !ok {
		t.Fatalf("the namespace restriction was lost: %v", o.Cache.DefaultNamespaces)
	}
	fields := []metav1.ManagedFieldsEntry{{Manager: "orderhub", Operation: metav1.ManagedFieldsOperationApply}}

	order := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: "p", ManagedFields: fields}}
	got, err := o.Cache.DefaultTransform(order)
	if err != nil {
		t.Fatal(err)
	}
	if mf := got.(*c5c3v1alpha1.KeystoneProject).ManagedFields; mf != nil {
		t.Errorf("an order keeps its managed fields in the cache: %v", mf)
	}

	var secretTransform func(any) (any, error)
	for obj, by := range o.Cache.ByObject {
		if _, ok := obj.(*corev1.Secret); ok {
			secretTransform = by.Transform
		}
	}
	if secretTransform == nil {
		t.Fatal("Secrets have no transform of their own, so they take the stripping default")
	}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", ManagedFields: fields}}
	got, err = secretTransform(sec)
	if err != nil {
		t.Fatal(err)
	}
	if mf := got.(*corev1.Secret).ManagedFields; len(mf) != 1 || mf[0].Manager != "orderhub" {
		t.Errorf("a Secret lost its managed fields in the cache: %v", mf)
	}
}
