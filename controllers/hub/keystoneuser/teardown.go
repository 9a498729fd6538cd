package keystoneuser

import (
	"context"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/eso"
)

// childLists are the kinds of the order's children in the plane's
// namespace, in the order the teardown deletes them ("Deletion Semantics"):
// the PushSecret (ESO removes the OpenBao path), the K-ORC User (K-ORC
// deletes the Keystone user), the Secrets (password generations, source),
// the probe (a User too) and the Domain import.
func childLists() []client.ObjectList {
	return []client.ObjectList{eso.NewMetadataList(eso.PushSecretGVK), &orcv1alpha1.UserList{}, &corev1.SecretList{}, &orcv1alpha1.DomainList{}}
}

// claimDomain is the domain of the order's claim: EffectiveDomain, or with
// the plane gone spec.domainName or controlplane.DefaultAdminDomain.
func claimDomain(ku *c5c3v1alpha1.KeystoneUser, cp *c5c3v1alpha1.ControlPlane) string {
	if cp != nil {
		return EffectiveDomain(ku, cp)
	}
	if ku.Spec.DomainName != "" {
		return string(ku.Spec.DomainName)
	}
	return controlplane.DefaultAdminDomain
}

// teardown runs the finalizer ("Deletion Semantics"): hold while a
// KeystoneApplicationCredential references the user
// (UserReady=False/ReferencedByApplicationCredentials); then delete every
// child by its labels and release once none is listed. With the plane gone,
// one pass issues every delete and releases; the claim on the user's name
// (orders.Release) goes last, once the Keystone user is gone. A frozen order
// is torn down all the same. The delivered Secret goes
// with the order through its owner reference (garbage collector).
func (r *Reconciler) teardown(ctx context.Context, o orders.Order, oc client.Client, ku *c5c3v1alpha1.KeystoneUser,
	cp *c5c3v1alpha1.ControlPlane) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(ku, c5c3v1alpha1.FinalizerKeystoneUserTeardown) {
		return reconcile.Result{}, nil
	}
	held, err := orders.HeldBy(ctx, oc, ku.Namespace, orders.CredentialRefs{User: ku.Name})
	if err != nil {
		return reconcile.Result{}, err
	}
	if held.Holding() {
		st := ku.Status.DeepCopy()
		user := HeldCondition(held, ku.Name, ku.Generation)
		dc := DeliveryCondition(Observation{Gate: orders.Gate{Reason: c5c3v1alpha1.ReasonReferencedByApplicationCredentials,
			Message: held.Message(orders.KindKeystoneUser, ku.Name)}}, ku.Generation)
		if c := meta.FindStatusCondition(st.Conditions, c5c3v1alpha1.ConditionDeliveryReady); c != nil {
			dc = *c // the delivered Secret is untouched while held
		}
		if err := r.writeStatus(ctx, o, oc, ku, st, Conditions(user, dc, ku.Generation)); err != nil {
			return reconcile.Result{}, err
		}
		return reconcile.Result{RequeueAfter: NotReadyRequeue}, nil
	}
	planeNS, _ := orders.PlaneKey(ku.Spec.ControlPlaneRef, ku.Namespace)
	left, err := r.sweep(ctx, planeNS, orders.ChildLabels(o))
	if cp != nil && (err != nil || left > 0) {
		return reconcile.Result{RequeueAfter: NotReadyRequeue}, err // the children's deletion events bring us back sooner
	}
	// The Keystone user is gone: its name is free for another order.
	if err := orders.Release(ctx, r.claims, planeNS, userClaim(EffectiveUserName(ku), claimDomain(ku, cp)), o); err != nil {
		return reconcile.Result{}, err
	}
	base := ku.DeepCopy()
	controllerutil.RemoveFinalizer(ku, c5c3v1alpha1.FinalizerKeystoneUserTeardown)
	if err := oc.Patch(ctx, ku, client.MergeFrom(base)); err != nil {
		return reconcile.Result{}, err
	}
	if cp == nil && left > 0 {
		r.event(o, ku, corev1.EventTypeWarning, "TeardownFailOpen",
			"the ControlPlane is gone: released with %d children still terminating", left)
	}
	return reconcile.Result{}, nil
}

// sweep deletes every child labelled lbl in ns and returns how many were
// still listed (orders.SweepChildren; a kind whose CRD is not installed
// lists nothing). Errors: a list or delete failure (joined).
func (r *Reconciler) sweep(ctx context.Context, ns string, lbl map[string]string) (int, error) {
	return orders.SweepChildren(ctx, r.children, r.local, ns, lbl, childLists()...)
}
