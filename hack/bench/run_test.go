package main

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// dropFinalizers must clear objects a controller still running holds: the
// controller adds its finalizer again to an object that is not being
// deleted (here: after every patch), so the finalizers can only be dropped
// once the deletion has begun.
func TestDropFinalizersBeatsARunningController(t *testing.T) {
	const ns, finalizer = "bench", "example.com/held"
	var objs []*unstructured.Unstructured
	var seed []client.Object
	for _, name := range []string{"a", "b", "c"} {
		seed = append(seed, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Finalizers: []string{finalizer}}})
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("ConfigMap")
		u.SetNamespace(ns)
		u.SetName(name)
		objs = append(objs, u)
	}
	kube := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(seed...).WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			if err := c.Patch(ctx, obj, patch, opts...); err != nil {
				return err
			}
			var cm corev1.ConfigMap
			if err := c.Get(ctx, client.ObjectKeyFromObject(obj), &cm); err != nil || cm.DeletionTimestamp != nil {
				return nil
			}
			cm.Finalizers = append(cm.Finalizers, finalizer)
			return c.Update(ctx, &cm)
		},
	}).Build()
	b := &bench{kube: kube}
	if err := b.dropFinalizers(context.Background(), ns, objs, 2*time.Second); err != nil {
		t.Fatal(err)
	}
}
