package keystoneproject

import (
	"context"
	"errors"
	"fmt"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// childLists are the kinds of the order's children in the plane's
// namespace: the managed Project (K-ORC deletes the Keystone project with
// it) and its probe, and the Domain import (released; K-ORC never deletes an
// imported domain).
func childLists() []client.ObjectList {
	return []client.ObjectList{&orcv1alpha1.ProjectList{}, &orcv1alpha1.DomainList{}}
}

// teardown runs the finalizer (docs/reference/keystoneproject.md "Deletion
// Semantics", DecideTeardown): held while a KeystoneApplicationCredential in
// the namespace references the project; then every child is deleted and the
// finalizer released once none is listed, or at once with the plane gone.
// Teardown runs whatever the consent: deleting the order is the one way to
// tear it down. While a KeystoneUser of the namespace names the project in
// spec.defaultProjectRef the deletion is held too (HeldByUsersCondition;
// K-ORC would keep the project anyway); while children are listed
// ProjectReady says so (DeletingCondition); the claim on the project's name
// goes last (orders.Release).
func (r *Reconciler) teardown(ctx context.Context, oc client.Client, kp *c5c3v1alpha1.KeystoneProject,
	cp *c5c3v1alpha1.ControlPlane, ord orders.Order) (reconcile.Result, error) {
	has := controllerutil.ContainsFinalizer(kp, c5c3v1alpha1.FinalizerKeystoneProjectTeardown)
	if !has {
		return reconcile.Result{}, nil
	}
	held, err := orders.HeldBy(ctx, oc, kp.Namespace, orders.CredentialRefs{Project: kp.Name})
	if err != nil {
		return reconcile.Result{}, err
	}
	if held.Holding() {
		// KeystoneApplicationCredential events bring the order back
		// (deletingProjectOf).
		err := r.writeStatus(ctx, oc, kp, Conditions(HeldCondition(held, kp.Name, kp.Generation), kp.Generation), kp.Status)
		return reconcile.Result{RequeueAfter: orders.CapTarget(r.heldRequeue, ord.OnTargetCluster())}, err
	}
	var users c5c3v1alpha1.KeystoneUserList
	if err := oc.List(ctx, &users, client.InNamespace(kp.Namespace),
		client.MatchingFields{orders.IndexDefaultProjectRef: kp.Name}); err != nil {
		return reconcile.Result{}, fmt.Errorf("list KeystoneUsers in %s: %w", kp.Namespace, err)
	}
	if byUsers := UsersReferencing(kp.Name, users.Items); len(byUsers) > 0 && cp != nil {
		// KeystoneUser events bring the order back (deletingProjectOf).
		err := r.writeStatus(ctx, oc, kp, Conditions(HeldByUsersCondition(byUsers, kp.Name, kp.Generation), kp.Generation), kp.Status)
		return reconcile.Result{RequeueAfter: orders.CapTarget(r.heldRequeue, ord.OnTargetCluster())}, err
	}
	planeNS, _ := orders.PlaneKey(kp.Spec.ControlPlaneRef, kp.Namespace)
	left, sweepErr := r.sweep(ctx, planeNS, ord)
	switch orders.DecideTeardown(has, held, cp != nil, left, sweepErr != nil) {
	case orders.TeardownWait:
		// The children's deletion events bring the order back.
		err := r.writeStatus(ctx, oc, kp, Conditions(DeletingCondition(left, sweepErr, kp.Generation), kp.Generation), kp.Status)
		return reconcile.Result{RequeueAfter: NotReadyRequeue}, errors.Join(sweepErr, err)
	case orders.TeardownRelease:
		// The Keystone project is gone: its name is free for another order.
		if err := orders.Release(ctx, r.claims, planeNS, projectClaim(EffectiveProjectName(kp), claimDomain(kp, cp)), ord); err != nil {
			return reconcile.Result{}, err
		}
		base := kp.DeepCopy()
		controllerutil.RemoveFinalizer(kp, c5c3v1alpha1.FinalizerKeystoneProjectTeardown)
		// NotFound: an earlier pass released it already (a stale cache).
		if err := client.IgnoreNotFound(oc.Patch(ctx, kp, client.MergeFrom(base))); err != nil {
			return reconcile.Result{}, fmt.Errorf("release the finalizer: %w", err)
		}
		if cp == nil && left > 0 {
			orders.Event(r.recorder, ord, kp, corev1.EventTypeWarning, "TeardownFailOpen", "Delete",
				"ControlPlane is gone: released with %d children still listed", left)
		}
	}
	return reconcile.Result{}, nil
}

// sweep deletes every child of ord in planeNS (found by orders.ChildLabels)
// that is not being deleted yet and returns how many were listed
// (orders.SweepChildren).
func (r *Reconciler) sweep(ctx context.Context, planeNS string, ord orders.Order) (int, error) {
	return orders.SweepChildren(ctx, r.children, r.local, planeNS, orders.ChildLabels(ord), childLists()...)
}

// claimDomain is the domain of the order's claim: EffectiveDomain, or with
// the plane gone spec.domainName or controlplane.DefaultAdminDomain.
func claimDomain(kp *c5c3v1alpha1.KeystoneProject, cp *c5c3v1alpha1.ControlPlane) string {
	if cp != nil {
		return EffectiveDomain(kp, cp)
	}
	if kp.Spec.DomainName != "" {
		return string(kp.Spec.DomainName)
	}
	return controlplane.DefaultAdminDomain
}
