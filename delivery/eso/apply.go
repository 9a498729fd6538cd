package eso

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/delivery/apply"
)

// Apply writes a built ESO object with server-side apply under fieldOwner,
// forcing ownership of the fields it sets, and stores the server's answer in
// u (so its status can be read without another Get). Fields the object does
// not set (the status, annotations stamped by StampAnnotations) are left
// alone. An object of u's name that another owner's labels (or none) mark
// is never written (apply.GuardOwner): the error is an
// *apply.OwnedElsewhereError.
func Apply(ctx context.Context, c client.Client, fieldOwner string, u *unstructured.Unstructured) error {
	if fieldOwner == "" {
		return fmt.Errorf("eso: apply %s %s/%s: no field owner", u.GetKind(), u.GetNamespace(), u.GetName())
	}
	if err := apply.GuardOwner(ctx, c, u); err != nil {
		return err
	}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("eso: apply %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return nil
}
