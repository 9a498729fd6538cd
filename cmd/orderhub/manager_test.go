package main

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/delivery/apply"
	"github.com/c5c3/orderhub/delivery/eso"
)

// The hub's cache drops managed fields from every type but Secrets, whose
// field managers delivery reads; of those it keeps the managers and drops
// the fields they own. The trims are one default transform: a
// cache.ByObject entry would need its kind's REST mapping at start-up, so
// the test fails on any.
func TestHubCacheKeepsWhatTheHubReads(t *testing.T) {
	var o ctrl.Options
	o.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{"tenant": {}}}
	trimHubCache(&o)
	if _, ok := o.Cache.DefaultNamespaces["tenant"]; !ok {
		t.Fatalf("the namespace restriction was lost: %v", o.Cache.DefaultNamespaces)
	}
	fields := func() []metav1.ManagedFieldsEntry {
		return []metav1.ManagedFieldsEntry{{Manager: "orderhub", Operation: metav1.ManagedFieldsOperationApply,
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:password":{}}}`)}}}
	}

	order := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: "p", ManagedFields: fields()}}
	got, err := o.Cache.DefaultTransform(order)
	if err != nil {
		t.Fatal(err)
	}
	if mf := got.(*c5c3v1alpha1.KeystoneProject).ManagedFields; mf != nil {
		t.Errorf("an order keeps its managed fields in the cache: %v", mf)
	}

	if len(o.Cache.ByObject) != 0 {
		t.Errorf("the hub's cache has per-type settings, which need their CRDs installed when it starts: %v", o.Cache.ByObject)
	}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", ManagedFields: fields()}}
	got, err = o.Cache.DefaultTransform(sec)
	if err != nil {
		t.Fatal(err)
	}
	mf := got.(*corev1.Secret).ManagedFields
	if len(mf) != 1 || mf[0].Manager != "orderhub" || mf[0].Operation != metav1.ManagedFieldsOperationApply {
		t.Fatalf("a Secret lost who applied it in the cache: %v", mf)
	}
	if !apply.Owned(got.(*corev1.Secret), nil, "orderhub") {
		t.Error("delivery no longer recognises the Secret it applied")
	}
	if mf[0].FieldsV1 != nil {
		t.Errorf("a cached Secret keeps the fields its managers own: %s", mf[0].FieldsV1.Raw)
	}
	if o.NewClient == nil {
		t.Error("the hub's client does not read stripped Secrets whole (secretcache.NewClient)")
	}
	foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "f"}, Data: map[string][]byte{"k": []byte("v")}}
	own := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "o", Labels: map[string]string{"c5c3.io/owner-kind": "KeystoneUser"}},
		Data: map[string][]byte{"k": []byte("v")}}
	for _, s := range []*corev1.Secret{foreign, own} {
		if _, err := o.Cache.DefaultTransform(s); err != nil {
			t.Fatal(err)
		}
	}
	if foreign.Data != nil || own.Data == nil {
		t.Errorf("the cache keeps data of a Secret without a c5c3.io label (%v) or drops it of one with (%v)", foreign.Data, own.Data)
	}

	push := eso.NewMetadata(eso.PushSecretGVK)
	push.ManagedFields = fields()
	got, err = o.Cache.DefaultTransform(push)
	if err != nil {
		t.Fatal(err)
	}
	if mf := got.(*metav1.PartialObjectMetadata).ManagedFields; mf != nil {
		t.Errorf("a PushSecret's metadata keeps its managed fields in the cache: %v", mf)
	}

	// A workload keeps only what the consumers step reads.
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", ManagedFields: fields()},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "c", Image: "app:1", EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "u-credentials"}}}}}}}}}}
	if _, err := o.Cache.DefaultTransform(d); err != nil {
		t.Fatal(err)
	}
	if d.ManagedFields != nil || d.Spec.Template.Spec.Containers[0].Image != "" || !consumers.Consumes(&d.Spec.Template, "u-credentials") {
		t.Errorf("a cached Deployment is not trimmed to what the consumers step reads: %+v", d)
	}
}
