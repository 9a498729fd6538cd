package keystoneservice

import (
	"context"
	"fmt"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/korc"
)

// catalogBlock reports CatalogReady and status.catalog, projecting the
// block when the gate is open and sweeping it when it was removed.
func (r *Reconciler) catalogBlock(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane,
	gate Gate, errs *[]error) (metav1.Condition, *c5c3v1alpha1.KeystoneServiceCatalogStatus) {
	switch {
	case ks.Spec.Catalog == nil:
		left := r.sweepRemoved(ctx, ks, cp, gate, catalogSets, errs)
		if left == 0 {
			return NotDeclaredCatalog(ks.Generation), nil
		}
		return CatalogCondition(CatalogObservation{ServiceExists: true,
			Service: korc.State{Phase: korc.PhaseProgressing, Message: "removing the catalog children"}}, ks.Generation), nil
	case !gate.Passed():
		return CatalogCondition(CatalogObservation{Gate: gate}, ks.Generation), ks.Status.Catalog
	}
	o := r.catalog(ctx, ks, cp)
	o.External = controlplane.IsExternal(cp)
	return CatalogCondition(o, ks.Generation), catalogStatus(ks, o)
}

// accountBlock reports AccountReady and status.account, projecting the
// block when the gate is open and sweeping it when it was removed.
func (r *Reconciler) accountBlock(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane,
	gate Gate, errs *[]error) (metav1.Condition, *c5c3v1alpha1.KeystoneServiceAccountStatus) {
	switch {
	case ks.Spec.Account == nil:
		left := r.sweepRemoved(ctx, ks, cp, gate, accountSets(ks), errs)
		if left == 0 {
			return NotDeclaredAccount(ks.Generation), nil
		}
		return AccountCondition(AccountObservation{Children: []Child{{What: "the account children",
			State: korc.State{Phase: korc.PhaseProgressing, Message: fmt.Sprintf("removing %d of them", left)}}}}, ks.Generation), nil
	case !gate.Passed():
		return AccountCondition(AccountObservation{Gate: gate}, ks.Generation), ks.Status.Account
	}
	o, st := r.account(ctx, ks, cp)
	return AccountCondition(o, ks.Generation), st
}

// sweepRemoved sweeps the children of a block removed from the spec once the
// gate is open (a removed block's condition waits for the sweep) and returns
// how many are left (0 with the gate closed). A failed sweep is appended to
// errs.
func (r *Reconciler) sweepRemoved(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane,
	gate Gate, sets []orders.ChildSet, errs *[]error) int {
	if !gate.Passed() {
		return 0
	}
	left, err := r.sweep(ctx, ks, cp.Namespace, sets)
	if err != nil {
		*errs = append(*errs, err)
	}
	return left
}

// catalogStatus is status.catalog for o.
func catalogStatus(ks *c5c3v1alpha1.KeystoneService, o CatalogObservation) *c5c3v1alpha1.KeystoneServiceCatalogStatus {
	s := &c5c3v1alpha1.KeystoneServiceCatalogStatus{}
	if o.Service.Phase == korc.PhaseAvailable {
		s.ServiceID = o.Service.ID
	}
	for _, e := range ks.Spec.Catalog.Endpoints {
		es := c5c3v1alpha1.KeystoneServiceEndpointStatus{Interface: e.Interface}
		if st, ok := o.Endpoints[e.Interface]; ok && st.Phase == korc.PhaseAvailable {
			es.ID = st.ID
		}
		s.Endpoints = append(s.Endpoints, es)
	}
	return s
}

func (r *Reconciler) deleteIfExists(ctx context.Context, o client.Object) error {
	if err := r.client.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %T %s/%s: %w", o, o.GetNamespace(), o.GetName(), err)
	}
	return nil
}

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
