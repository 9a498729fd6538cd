package keystoneservice

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// Ownership label keys of every child a KeystoneService projects (the
// shared keys of api/c5c3/v1alpha1 labels.go); OwnerKind is LabelOwnerKind's
// value on them.
const (
	LabelOwnerKind      = c5c3v1alpha1.LabelOwnerKind
	LabelOwnerNamespace = c5c3v1alpha1.LabelOwnerNamespace
	LabelOwnerName      = c5c3v1alpha1.LabelOwnerName
	LabelOwnerCluster   = c5c3v1alpha1.LabelOwnerCluster
	OwnerKind           = "KeystoneService"
)

// ChildLabels are the ownership labels of ks's children (cluster empty: the
// management cluster).
func ChildLabels(ks *c5c3v1alpha1.KeystoneService) map[string]string {
	return map[string]string{LabelOwnerKind: OwnerKind, LabelOwnerNamespace: ks.Namespace,
		LabelOwnerName: ks.Name, LabelOwnerCluster: ""}
}

// ownerOfChild maps a labelled child to its KeystoneService.
func ownerOfChild(_ context.Context, o client.Object) []reconcile.Request {
	l := o.GetLabels()
	if l[LabelOwnerKind] != OwnerKind || l[LabelOwnerName] == "" || l[LabelOwnerNamespace] == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: l[LabelOwnerNamespace], Name: l[LabelOwnerName]}}}
}

// registrationsOfPlane maps a ControlPlane to the KeystoneServices
// referencing it.
func registrationsOfPlane(c client.Client) func(context.Context, client.Object) []reconcile.Request {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		var list c5c3v1alpha1.KeystoneServiceList
		if err := c.List(ctx, &list); err != nil {
			return nil
		}
		var reqs []reconcile.Request
		for i := range list.Items {
			ks := &list.Items[i]
			if ks.OnPlane(o.GetNamespace(), o.GetName()) {
				reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(ks)})
			}
		}
		return reqs
	}
}
