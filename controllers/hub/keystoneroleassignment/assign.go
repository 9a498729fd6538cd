package keystoneroleassignment

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/korc"
)

// roleImportName is the name of ord's Role import child.
func roleImportName(ord orders.Order, role string) string {
	return korc.OrderChildName(korc.InfixRoleAssignment, ord.Cluster, ord.Namespace, ord.Name, korc.RoleDiscriminator(role))
}

// refs reads, through oc (the order's cluster), the KeystoneUser and the
// KeystoneProject ra references in its namespace and gates them
// (orders.UserGate, orders.ProjectGate; a provisioned order that reports no
// Keystone id yet waits as well). It returns the gate and, when it passed,
// the Keystone ids of the user and the project, read through local from
// their K-ORC children in the plane's namespace and not from the orders'
// status (orders.UserKeystoneID, orders.ProjectKeystoneID; docs/hub.md "Trust"): a child without an id
// yet waits too. Errors: a read failure other than NotFound.
func refs(ctx context.Context, oc, local client.Reader, ra *c5c3v1alpha1.KeystoneRoleAssignment, cp *c5c3v1alpha1.ControlPlane,
	cluster string) (conditions.Gate, string, string, error) {
	user, err := orders.GetOrNil[c5c3v1alpha1.KeystoneUser](ctx, oc, ra.Namespace, ra.Spec.UserRef.Name)
	if err != nil {
		return conditions.Gate{}, "", "", err
	}
	if g := orders.UserGate(ra.Namespace, ra.Spec.UserRef, user, cp.Namespace, cp.Name); !g.Passed() {
		return g, "", "", nil
	}
	if user.Status.UserID == "" {
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForUser, Message: fmt.Sprintf(
			"KeystoneUser %s reports no status.userID yet", user.Name)}, "", "", nil
	}
	project, err := orders.GetOrNil[c5c3v1alpha1.KeystoneProject](ctx, oc, ra.Namespace, ra.Spec.ProjectRef.Name)
	if err != nil {
		return conditions.Gate{}, "", "", err
	}
	if g := orders.ProjectGate(ra.Namespace, ra.Spec.ProjectRef, project, cp.Namespace, cp.Name); !g.Passed() {
		return g, "", "", nil
	}
	if project.Status.ProjectID == "" {
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForProject, Message: fmt.Sprintf(
			"KeystoneProject %s reports no status.projectID yet", project.Name)}, "", "", nil
	}
	userID, err := orders.UserKeystoneID(ctx, local, cp.Namespace, cluster, ra.Namespace, user.Name)
	if err != nil {
		return conditions.Gate{}, "", "", err
	}
	projectID, err := orders.ProjectKeystoneID(ctx, local, cp.Namespace, cluster, ra.Namespace, project.Name)
	switch {
	case err != nil:
		return conditions.Gate{}, "", "", err
	case userID == "":
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForUser, Message: fmt.Sprintf(
			"KeystoneUser %s has no Keystone user in ControlPlane %s/%s yet (its K-ORC User %s reports no id)",
			user.Name, cp.Namespace, cp.Name, orders.UserChildName(cluster, ra.Namespace, user.Name))}, "", "", nil
	case projectID == "":
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForProject, Message: fmt.Sprintf(
			"KeystoneProject %s has no Keystone project in ControlPlane %s/%s yet (its K-ORC Project %s reports no id)",
			project.Name, cp.Namespace, cp.Name, orders.ProjectChildName(cluster, ra.Namespace, project.Name))}, "", "", nil
	}
	return conditions.Gate{}, userID, projectID, nil
}

// assign runs the projection of an order whose shared gate is open and
// whose role is allowed: the reference gates, the Role import (an unmanaged
// K-ORC Role by name, authenticated with the plane's application-credential
// cloud), and, once it resolved, the grant: made at once by an order that
// has not granted yet, otherwise read back from Keystone every pass and made
// when missing (which repairs an out-of-band revoke). It fills
// o and returns the user's and project's Keystone ids.
func (r *Reconciler) assign(ctx context.Context, oc client.Client, ra *c5c3v1alpha1.KeystoneRoleAssignment,
	cp *c5c3v1alpha1.ControlPlane, ord orders.Order, o *Observation) (userID, projectID string) {
	g, userID, projectID, err := refs(ctx, oc, r.Local, ra, cp, ord.Cluster)
	if err != nil {
		o.Error = err
		return "", ""
	}
	if o.Refs = g; !g.Passed() {
		return "", ""
	}
	role := string(ra.Spec.Role)
	imp := korc.RoleImportByName(korc.Child{Name: roleImportName(ord, role), Namespace: cp.Namespace,
		Labels: orders.ChildLabels(ord), Credentials: controlplane.Credentials(cp)}, role)
	// The teardown revokes what the import records, never what the order's
	// status says (docs/hub.md "Trust").
	imp.Annotations = grantAnnotations(userID, projectID)
	if err := korc.Apply(ctx, r.Local, ControllerName, imp); err != nil {
		o.Error = err
		return userID, projectID
	}
	o.RoleImport = korc.Probe(imp)
	if o.RoleImport.Outcome != korc.ProbeFound {
		return userID, projectID
	}
	creds, err := grants.AdminCredentials(ctx, r.Local, cp)
	if err != nil {
		o.Error = err
		return userID, projectID
	}
	// An order that has not granted yet grants without reading first: the
	// grant is idempotent in Keystone (docs/reference/keystoneroleassignment.md,
	// "How roles are granted").
	if ra.Status.RoleID != "" {
		granted, err := r.granter.Has(ctx, creds, userID, projectID, o.RoleImport.ID)
		if err != nil {
			o.GrantError = err
			return userID, projectID
		}
		if granted {
			o.Granted = true
			return userID, projectID
		}
	}
	if err := r.granter.Grant(ctx, creds, userID, projectID, o.RoleImport.ID); err != nil {
		o.GrantError = err
		return userID, projectID
	}
	o.Granted = true
	what := "assigned"
	if ra.Status.RoleID != "" {
		what = "re-assigned (it was missing in Keystone)"
	}
	orders.Event(r.Recorder, ord, ra, corev1.EventTypeNormal, "RoleAssigned", "Assign",
		"%s role %s to KeystoneUser %s on KeystoneProject %s", what, role, ra.Spec.UserRef.Name, ra.Spec.ProjectRef.Name)
	return userID, projectID
}
