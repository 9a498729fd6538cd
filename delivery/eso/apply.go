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
// is never written (apply.ReadOwned): the error is an
// *apply.OwnedElsewhereError. When the object read there already shows what
// this process applied last (apply.AlreadyApplied), nothing is sent and u
// becomes that object.
func Apply(ctx context.Context, c client.Client, fieldOwner string, u *unstructured.Unstructured) error {
	if fieldOwner == "" {
		return fmt.Errorf("eso: apply %s %s/%s: no field owner", u.GetKind(), u.GetNamespace(), u.GetName())
	}
	cur, err := apply.ReadOwned(ctx, c, u)
	if err != nil {
		return err
	}
	pending, skip, err := apply.Children.Check(fieldOwner, u, cur, u)
	if err != nil || skip {
		return err
	}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("eso: apply %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	pending.Done(u)
	return nil
}
