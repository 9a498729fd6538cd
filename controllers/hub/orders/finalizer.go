package orders

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// NeedsFinalizer reports whether an order without its finalizer gets it now:
// once cp assigns its namespace and its cluster name fits, so a refused or
// frozen order's deletion is never held.
func NeedsFinalizer(has bool, cp *c5c3v1alpha1.ControlPlane, o Order) bool {
	if has || len(o.Cluster) > MaxClusterNameLength {
		return false
	}
	_, assigned := Assigned(cp, o.Cluster, o.Namespace)
	return assigned
}

// AddFinalizer patches finalizer onto obj. Errors: the patch failed.
func AddFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	base, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("install the teardown finalizer: %T is not a client.Object copy", obj)
	}
	controllerutil.AddFinalizer(obj, finalizer)
	if err := c.Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("install the teardown finalizer: %w", err)
	}
	return nil
}
