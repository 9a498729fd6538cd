package korc

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/delivery/apply"
)

// Apply server-side applies the typed K-ORC object obj through c under
// fieldOwner (forcing ownership) and decodes the server's answer, with its
// status, back into obj. An object of obj's name that another owner's
// labels (or none) mark is never written (apply.ReadOwned). When the object
// read there already shows what this process applied last
// (apply.AlreadyApplied), nothing is sent and obj becomes that object.
// Errors: an *apply.OwnedElsewhereError, the conversion or the apply
// failing.
func Apply(ctx context.Context, c client.Client, fieldOwner string, obj client.Object) error {
	cur, err := apply.ReadOwned(ctx, c, obj)
	if err != nil {
		return err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: m}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	pending, skip, err := apply.Children.Check(fieldOwner, u, cur, obj)
	if err != nil || skip {
		return err
	}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("apply %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	pending.Done(u)
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj)
}
