package keystoneroleassignment

import (
	"context"
	"fmt"
	"strings"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/korc"
)

// hold holds an assignment that granted its role (status.roleID) while a
// credential of the same user and project exists.
func hold(ctx context.Context, p *orders.Pass[orderObj]) (orders.Hold, error) {
	ra := p.Obj
	if ra.Status.RoleID == "" {
		return orders.Hold{}, nil
	}
	held, err := orders.HeldBy(ctx, p.Client, ra.Namespace, orders.CredentialRefs{User: ra.Spec.UserRef.Name, Project: ra.Spec.ProjectRef.Name})
	return orders.Hold{Holding: held.Holding(), Requeue: NotReadyRequeue,
		Conditions: Conditions(HeldCondition(held, ra.Name, ra.Generation), ra.Generation)}, err
}

// revokeStep is revoke as a teardown step: a refusal is reported on
// AssignmentReady and nothing is deleted.
func (r *Reconciler) revokeStep(ctx context.Context, p *orders.Pass[orderObj]) ([]metav1.Condition, error) {
	ra := p.Obj
	err := r.revoke(ctx, p.Client, ra, p.Plane, p.Order)
	if err == nil {
		return nil, nil
	}
	c := metav1.Condition{Type: c5c3v1alpha1.ConditionAssignmentReady, Status: metav1.ConditionFalse, ObservedGeneration: ra.Generation,
		Reason: GrantReason(err, controlplane.IsExternal(p.Plane)), Message: "revoking the assignment in Keystone: " + err.Error()}
	return Conditions(c, ra.Generation), err
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
	err := r.Local.Get(ctx, types.NamespacedName{Namespace: cp.Namespace, Name: roleImportName(ord, string(ra.Spec.Role))}, &imp)
	switch {
	case err == nil:
		recorded = imp.Annotations
		if korc.AvailableUpToDate(&imp) {
			importID = korc.IDOf(&imp)
		}
	case !apierrors.IsNotFound(err):
		return err
	}
	// The user and project come from Recorded, never the order's status.
	var childUser, childProject string
	if !recordsGrant(recorded) {
		if childUser, err = orders.UserKeystoneID(ctx, r.Local, cp.Namespace, ord.Cluster, ra.Namespace, ra.Spec.UserRef.Name); err != nil {
			return err
		}
		if childProject, err = orders.ProjectKeystoneID(ctx, r.Local, cp.Namespace, ord.Cluster, ra.Namespace, ra.Spec.ProjectRef.Name); err != nil {
			return err
		}
	}
	rev, ok := PlanRevoke(Recorded(recorded, childUser, childProject), importID, ra.Status.RoleID, shared, true)
	if !ok {
		switch {
		case len(shared) > 0:
			orders.Event(r.Recorder, ord, ra, corev1.EventTypeNormal, "RevokeSkipped", "Delete",
				"role %s stays assigned in Keystone: KeystoneRoleAssignment %s grants it too", ra.Spec.Role, strings.Join(shared, ", "))
		case ra.Status.RoleID != "":
			// Granted once, but neither the import nor the orders'
			// children name the user and project any more.
			orders.Event(r.Recorder, ord, ra, corev1.EventTypeWarning, "RevokeSkipped", "Delete",
				"role %s was not revoked in Keystone: the user and project it was granted to are no longer known (their K-ORC children are gone); revoke it by hand if the user and project still exist", ra.Spec.Role)
		}
		return nil
	}
	creds, err := grants.AdminCredentials(ctx, r.Local, cp)
	if err != nil {
		return err
	}
	if err := r.granter.Revoke(ctx, creds, rev.UserID, rev.ProjectID, rev.RoleID); err != nil {
		return err
	}
	orders.Event(r.Recorder, ord, ra, corev1.EventTypeNormal, "RoleRevoked", "Delete",
		"revoked role %s (id %s) from KeystoneUser %s on KeystoneProject %s", ra.Spec.Role, rev.RoleID, ra.Spec.UserRef.Name, ra.Spec.ProjectRef.Name)
	return nil
}
