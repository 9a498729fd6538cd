package keystoneservice

import (
	"context"
	"errors"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/eso"
)

// childKind is a list type of children and whether they live in the
// plane's namespace (K-ORC children, password Secrets) or in the
// registration's own (the delivery objects).
type childKind struct {
	list    func() client.ObjectList
	inPlane bool
}

// catalogKinds are the catalog block's children: Endpoints before the
// Service they reference.
var catalogKinds = []childKind{
	{func() client.ObjectList { return &orcv1alpha1.EndpointList{} }, true},
	{func() client.ObjectList { return &orcv1alpha1.ServiceList{} }, true},
}

// accountKinds are the account block's children
// (docs/reference/keystoneservice.md, "Deletion Semantics"): the delivery
// objects (the consumer Secret goes with its ExternalSecret, the OpenBao path
// with its PushSecret), the user (managed: deleted in Keystone, taking its role
// assignments with it), the project (deleted when managed, released when
// imported), the role and domain imports (released), and the password and
// source Secrets.
var accountKinds = []childKind{
	{func() client.ObjectList { return eso.NewList(eso.ExternalSecretGVK) }, false},
	{func() client.ObjectList { return eso.NewMetadataList(eso.PushSecretGVK) }, false},
	{func() client.ObjectList { return &corev1.SecretList{} }, false},
	{func() client.ObjectList { return &orcv1alpha1.UserList{} }, true},
	{func() client.ObjectList { return &orcv1alpha1.ProjectList{} }, true},
	{func() client.ObjectList { return &orcv1alpha1.RoleList{} }, true},
	{func() client.ObjectList { return &orcv1alpha1.DomainList{} }, true},
	{func() client.ObjectList { return &corev1.SecretList{} }, true},
}

// children lists ks's children of kinds; planeNS is the plane's namespace.
// A name no label value can hold (a CR admitted before the webhook bounded
// metadata.name to 63 bytes) has no children and lists nothing
// (orders.UnlabelableValues): the API server would refuse the selector and
// wedge the finalizer.
func (r *Reconciler) children(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, planeNS string, kinds []childKind) ([]client.Object, error) {
	var out []client.Object
	if len(orders.UnlabelableValues(ChildLabels(ks))) > 0 {
		return nil, nil
	}
	for _, k := range kinds {
		ns := ks.Namespace
		if k.inPlane {
			ns = planeNS
		}
		l := k.list()
		if err := r.client.List(ctx, l, client.InNamespace(ns), client.MatchingLabels(ChildLabels(ks))); err != nil {
			if meta.IsNoMatchError(err) {
				continue // ESO not installed: nothing of that kind can exist
			}
			return nil, err
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			o, ok := it.(client.Object)
			if !ok {
				continue
			}
			// The consumer Secret carries our labels through the
			// ExternalSecret's template, but it is ESO's: it goes with the
			// ExternalSecret (docs/reference/keystoneservice.md,
			// "Consumer Secret contract": "Do not delete the Secret directly").
			if s, isSecret := o.(*corev1.Secret); isSecret && s.Name == ConsumerSecretName(ks) && !k.inPlane {
				continue
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// sweep deletes every child of kinds and returns how many were still
// listed.
func (r *Reconciler) sweep(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, planeNS string, kinds []childKind) (int, error) {
	kids, err := r.children(ctx, ks, planeNS, kinds)
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, k := range kids {
		if k.GetDeletionTimestamp().IsZero() {
			errs = append(errs, r.deleteIfExists(ctx, k))
		}
	}
	return len(kids), errors.Join(errs...)
}

// teardown runs the finalizer (docs/reference/keystoneservice.md, "Deletion
// Semantics"): delete every child of both blocks; while the ControlPlane exists
// keep the finalizer until none is listed (patient, no stall escape), once it
// is gone release it at once (fail-open).
func (r *Reconciler) teardown(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) error {
	if !controllerutil.ContainsFinalizer(ks, c5c3v1alpha1.FinalizerKeystoneServiceTeardown) {
		return nil
	}
	left, err := r.sweep(ctx, ks, ks.ControlPlaneNamespace(), append(append([]childKind{}, catalogKinds...), accountKinds...))
	if cp != nil && (err != nil || left > 0) {
		return err // patient: the children's deletion events bring us back
	}
	// The claim on the account's user name goes last, once the Keystone
	// user is gone (or the plane is, fail-open).
	if err := r.ReleaseAccountClaim(ctx, ks, cp); err != nil {
		return err
	}
	base := ks.DeepCopy()
	controllerutil.RemoveFinalizer(ks, c5c3v1alpha1.FinalizerKeystoneServiceTeardown)
	if perr := r.client.Patch(ctx, ks, client.MergeFrom(base)); perr != nil {
		return perr
	}
	if cp == nil && left > 0 {
		r.recorder.Eventf(ks, nil, corev1.EventTypeWarning, "TeardownFailOpen", "Delete",
			"ControlPlane is gone: released with %d children still terminating", left)
	}
	return nil
}
