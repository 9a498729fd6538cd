package keystoneroleassignment

import (
	"context"
	"errors"
	"fmt"
	"strings"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/korc"
)

// teardown runs the finalizer (docs/reference/keystoneroleassignment.md
// "Deletion Semantics"): held while a KeystoneApplicationCredential of the
// same user and project exists; then the assignment is revoked in Keystone
// (PlanRevoke: not while another live order grants the same), the Role
// import is released (deleted as an object; K-ORC never deletes an
// imported role), and the finalizer removed once nothing is listed. With
// the plane gone one pass deletes the import and releases. Teardown runs
// whatever the consent: deleting the order is the one way to tear it down.
func (r *Reconciler) teardown(ctx context.Context, oc client.Client, ra *c5c3v1alpha1.KeystoneRoleAssignment,
	cp *c5c3v1alpha1.ControlPlane, ord orders.Order) (reconcile.Result, error) {
	has := controllerutil.ContainsFinalizer(ra, c5c3v1alpha1.FinalizerKeystoneRoleAssignmentTeardown)
	if !has {
		return reconcile.Result{}, nil
	}
	// Only an assignment that granted its role holds: one that never did
	// (RoleNotAllowed, RoleNotFound, a reference still waiting; no
	// status.roleID) gives a credential nothing to lose, and holding it
	// would leave a mistaken order undeletable until the credential goes.
	var held orders.Held
	if ra.Status.RoleID != "" {
		var err error
		held, err = orders.HeldBy(ctx, oc, ra.Namespace, orders.CredentialRefs{User: ra.Spec.UserRef.Name, Project: ra.Spec.ProjectRef.Name})
		if err != nil {
			return reconcile.Result{}, err
		}
	}
	if held.Holding() {
		// KeystoneApplicationCredential events bring the order back.
		err := r.writeStatus(ctx, oc, ra, Conditions(HeldCondition(held, ra.Name, ra.Generation), ra.Generation), ra.Status)
		return reconcile.Result{RequeueAfter: RequeueAfter(false, ord.OnTargetCluster(), 0)}, err
	}
	if cp != nil {
		if err := r.revoke(ctx, oc, ra, cp, ord); err != nil {
			c := metav1.Condition{Type: c5c3v1alpha1.ConditionAssignmentReady, Status: metav1.ConditionFalse, ObservedGeneration: ra.Generation,
				Reason: GrantReason(err, controlplane.IsExternal(cp)), Message: "revoking the assignment in Keystone: " + err.Error()}
			return reconcile.Result{}, errors.Join(err, r.writeStatus(ctx, oc, ra, Conditions(c, ra.Generation), ra.Status))
		}
	}
	planeNS, _ := orders.PlaneKey(ra.Spec.ControlPlaneRef, ra.Namespace)
	left, sweepErr := r.sweep(ctx, planeNS, ord)
	switch orders.DecideTeardown(has, held, cp != nil, left, sweepErr != nil) {
	case orders.TeardownWait:
		// The import's deletion event brings the order back.
		return reconcile.Result{RequeueAfter: NotReadyRequeue}, sweepErr
	case orders.TeardownRelease:
		base := ra.DeepCopy()
		controllerutil.RemoveFinalizer(ra, c5c3v1alpha1.FinalizerKeystoneRoleAssignmentTeardown)
		// NotFound: an earlier pass released it already (a stale cache).
		if err := client.IgnoreNotFound(oc.Patch(ctx, ra, client.MergeFrom(base))); err != nil {
			return reconcile.Result{}, fmt.Errorf("release the finalizer: %w", err)
		}
	}
	return reconcile.Result{}, nil
}

// revoke revokes ra's assignment in Keystone unless PlanRevoke says
// otherwise. Errors: a failed read of the sibling orders or the Role
// import, the admin credentials, or Keystone's refusal (a missing
// assignment is not an error).
func (r *Reconciler) revoke(ctx context.Context, oc client.Client, ra *c5c3v1alpha1.KeystoneRoleAssignment,
	cp *c5c3v1alpha1.ControlPlane, ord orders.Order) error {
	var list c5c3v1alpha1.KeystoneRoleAssignmentList
	if err := oc.List(ctx, &list, client.InNamespace(ra.Namespace),
		orders.ReferenceFields(ra.Spec.UserRef.Name, ra.Spec.ProjectRef.Name)); err != nil {
		return fmt.Errorf("list KeystoneRoleAssignments in %s: %w", ra.Namespace, err)
	}
	shared := SharedBy(ra, list.Items)
	importID := ""
	var recorded map[string]string
	var imp orcv1alpha1.Role
	err := r.local.Get(ctx, types.NamespacedName{Namespace: cp.Namespace, Name: roleImportName(ord, string(ra.Spec.Role))}, &imp)
	switch {
	case err == nil:
		recorded = imp.Annotations
		if korc.AvailableUpToDate(&imp) {
			importID = korc.IDOf(&imp)
		}
	case !apierrors.IsNotFound(err):
		return err
	}
	// The user and project come from the import the hub wrote (or, for an
	// import older than its annotations, from the orders' K-ORC children),
	// not from the order's status, which its cluster's users may write.
	var childUser, childProject string
	if !recordsGrant(recorded) {
		if childUser, err = orders.UserKeystoneID(ctx, r.local, cp.Namespace, ord.Cluster, ra.Namespace, ra.Spec.UserRef.Name); err != nil {
			return err
		}
		if childProject, err = orders.ProjectKeystoneID(ctx, r.local, cp.Namespace, ord.Cluster, ra.Namespace, ra.Spec.ProjectRef.Name); err != nil {
			return err
		}
	}
	rev, ok := PlanRevoke(Recorded(recorded, childUser, childProject), importID, ra.Status.RoleID, shared, true)
	if !ok {
		switch {
		case len(shared) > 0:
			orders.Event(r.recorder, ord, ra, corev1.EventTypeNormal, "RevokeSkipped", "Delete",
				"role %s stays assigned in Keystone: KeystoneRoleAssignment %s grants it too", ra.Spec.Role, strings.Join(shared, ", "))
		case ra.Status.RoleID != "":
			// Granted once, but neither the import nor the orders'
			// children name the user and project any more.
			orders.Event(r.recorder, ord, ra, corev1.EventTypeWarning, "RevokeSkipped", "Delete",
				"role %s was not revoked in Keystone: the user and project it was granted to are no longer known (their K-ORC children are gone); revoke it by hand if the user and project still exist", ra.Spec.Role)
		}
		return nil
	}
	creds, err := grants.AdminCredentials(ctx, r.local, cp)
	if err != nil {
		return err
	}
	if err := r.granter.Revoke(ctx, creds, rev.UserID, rev.ProjectID, rev.RoleID); err != nil {
		return err
	}
	orders.Event(r.recorder, ord, ra, corev1.EventTypeNormal, "RoleRevoked", "Delete",
		"revoked role %s (id %s) from KeystoneUser %s on KeystoneProject %s", ra.Spec.Role, rev.RoleID, ra.Spec.UserRef.Name, ra.Spec.ProjectRef.Name)
	return nil
}

// sweep deletes the Role imports of ord in planeNS (found by
// orders.ChildLabels) and returns how many were listed
// (orders.SweepChildren).
func (r *Reconciler) sweep(ctx context.Context, planeNS string, ord orders.Order) (int, error) {
	return orders.SweepChildren(ctx, r.children, r.local, planeNS, orders.ChildLabels(ord), childLists()...)
}

// childLists are the kinds of the order's children in the plane's
// namespace: the Role import.
func childLists() []client.ObjectList {
	return []client.ObjectList{&orcv1alpha1.RoleList{}}
}
