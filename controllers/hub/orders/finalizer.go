package orders

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// NeedsFinalizer reports whether an order without its teardown finalizer
// (has false) gets it now: once cp assigns the order's namespace on its
// cluster and the cluster's name fits MaxClusterNameLength (an order the
// gate refuses for ClusterNameTooLong or freezes at NamespaceNotAssigned
// gets none, so its deletion is never held). A nil cp assigns nothing.
func NeedsFinalizer(has bool, cp *c5c3v1alpha1.ControlPlane, o Order) bool {
	if has || len(o.Cluster) > MaxClusterNameLength {
		return false
	}
	_, assigned := Assigned(cp, o.Cluster, o.Namespace)
	return assigned
}

// EnsureFinalizer installs finalizer on the order obj (a merge patch
// through c, the order's cluster client; obj is updated in place) when
// NeedsFinalizer says so, and does nothing otherwise. Errors: the patch
// failed (wrapped).
func EnsureFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string,
	cp *c5c3v1alpha1.ControlPlane, o Order) error {
	if !NeedsFinalizer(controllerutil.ContainsFinalizer(obj, finalizer), cp, o) {
		return nil
	}
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
