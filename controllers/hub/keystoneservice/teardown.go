package keystoneservice

import (
	"context"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/eso"
)

type ksObj = *c5c3v1alpha1.KeystoneService

// catalogSets are the catalog block's children: Endpoints before the
// Service they reference.
var catalogSets = []orders.ChildSet{
	{List: func() client.ObjectList { return &orcv1alpha1.EndpointList{} }},
	{List: func() client.ObjectList { return &orcv1alpha1.ServiceList{} }},
}

// accountSets are the account block's children in deletion order
// (docs/reference/keystoneservice.md, "Deletion Semantics").
func accountSets(ks ksObj) []orders.ChildSet {
	return []orders.ChildSet{
		{List: func() client.ObjectList { return eso.NewList(eso.ExternalSecretGVK) }, InOrderNamespace: true},
		{List: func() client.ObjectList { return eso.NewMetadataList(eso.PushSecretGVK) }, InOrderNamespace: true},
		// The consumer Secret is ESO's: it goes with its ExternalSecret.
		{List: func() client.ObjectList { return &corev1.SecretList{} }, InOrderNamespace: true,
			Select: func(o client.Object) bool { return o.GetName() != ConsumerSecretName(ks) }},
		{List: func() client.ObjectList { return &orcv1alpha1.UserList{} }},
		{List: func() client.ObjectList { return &orcv1alpha1.ProjectList{} }},
		{List: func() client.ObjectList { return &orcv1alpha1.RoleList{} }},
		{List: func() client.ObjectList { return &orcv1alpha1.DomainList{} }},
		{List: func() client.ObjectList { return &corev1.SecretList{} }},
	}
}

// teardown is the finalizer's spec (docs/reference/keystoneservice.md,
// "Deletion Semantics") for orders.RunTeardown: every child of both blocks,
// the account's name claims released last. It writes no status.
func (r *Reconciler) teardown(ks ksObj) orders.Teardown[ksObj] {
	return orders.Teardown[ksObj]{
		Finalizer: c5c3v1alpha1.FinalizerKeystoneServiceTeardown,
		Phases:    []orders.Phase[ksObj]{{Sets: append(append([]orders.ChildSet{}, catalogSets...), accountSets(ks)...)}},
		Release: func(ctx context.Context, p *orders.Pass[ksObj]) error {
			return r.ReleaseAccountClaim(ctx, p.Obj, p.Plane)
		},
	}
}

// sweep deletes every child of sets and returns how many were still listed
// (orders.Sweep); planeNS is the plane's namespace.
func (r *Reconciler) sweep(ctx context.Context, ks ksObj, planeNS string, sets []orders.ChildSet) (int, error) {
	return orders.Sweep(ctx, r.lister(ks), r.client, planeNS, ks.Namespace, sets...)
}

// lister lists ks's children by its ChildLabels; an unlabelable name
// (orders.UnlabelableValues) or an uninstalled CRD lists nothing.
func (r *Reconciler) lister(ks ksObj) orders.ChildLister {
	lbl := ChildLabels(ks)
	return func(ctx context.Context, list client.ObjectList, ns string) ([]client.Object, error) {
		if len(orders.UnlabelableValues(lbl)) > 0 {
			return nil, nil
		}
		if err := r.client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels(lbl)); err != nil {
			if meta.IsNoMatchError(err) {
				return nil, nil
			}
			return nil, err
		}
		return orders.Objects(list)
	}
}
