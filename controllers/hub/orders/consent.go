package orders

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// ManagementCluster is the cluster name of an order on the management
// cluster: the empty string, as in NamespaceAssignment.cluster and in the
// c5c3.io/owner-cluster label (docs/reference/keystoneapplicationcredential.md,
// "Projected child names": "empty for the management cluster").
const ManagementCluster = ""

// MaxClusterNameLength is the longest target-cluster name, in bytes, an order
// can live on: the cluster name is written into a label value, which carries
// at most 63 characters (docs/reference/keystoneapplicationcredential.md,
// "Conditions", ClusterNameTooLong).
const MaxClusterNameLength = 63

// Assigned returns the spec.namespaceAssignments entry of cp that assigns
// namespace on cluster (ManagementCluster, "", for the management cluster),
// and whether there is one (docs/reference/keystoneapplicationcredential.md,
// "Consent": "The spec.namespaceAssignments entry for the order's namespace and
// cluster is the only consent"). Both keys compare exactly: the schema
// restricts them to lowercase RFC-1123 names, and the list is a map keyed by
// cluster and namespace, so at most one entry matches. A nil cp assigns
// nothing. The returned pointer aliases cp's slice; do not modify it.
func Assigned(cp *c5c3v1alpha1.ControlPlane, cluster, namespace string) (*c5c3v1alpha1.NamespaceAssignment, bool) {
	if cp == nil {
		return nil, false
	}
	for i := range cp.Spec.NamespaceAssignments {
		a := &cp.Spec.NamespaceAssignments[i]
		if a.Cluster == cluster && a.Namespace == namespace {
			return a, true
		}
	}
	return nil, false
}

// RoleAllowed reports whether the assignment a lets a KeystoneRoleAssignment
// assign role (NamespaceAssignment.allowedRoles: "Empty allows none"). A nil
// assignment allows nothing. KeystoneApplicationCredentials never call this:
// docs/reference/keystoneapplicationcredential.md, "Consent", "The entry's
// allowedRoles is not consulted".
//
// Case: Keystone stores role names in a MySQL column with a *_general_ci
// collation, so "Member" and "member" name the same role there, and a role
// import of either name resolves to it. RoleAllowed therefore compares with
// strings.EqualFold (Unicode simple case folding). general_ci also ignores
// trailing spaces and folds some accents (é = e); EqualFold does not, so for
// those rare names RoleAllowed refuses where Keystone would see one role:
// the error is always on the refusing side, never an admission of a role
// the plane's operator did not list.
func RoleAllowed(a *c5c3v1alpha1.NamespaceAssignment, role string) bool {
	if a == nil {
		return false
	}
	for _, r := range a.AllowedRoles {
		if strings.EqualFold(string(r), role) {
			return true
		}
	}
	return false
}

// Gate is the verdict of the shared gates every sub-condition of an order
// reads (docs/reference/keystoneapplicationcredential.md, "Conditions", the
// rows marked "both"). Reason is one of the c5c3v1alpha1 reason constants, or
// empty when the order may proceed; Message names the remedy.
type Gate struct{ Reason, Message string }

// Passed reports an open gate (empty Reason).
func (g Gate) Passed() bool { return g.Reason == "" }

// Frozen reports the NamespaceNotAssigned gate: the order is frozen, so
// nothing is created, rotated, delivered, repaired or swept, and the
// schedule pauses (docs/reference/keystoneapplicationcredential.md, "Consent").
func (g Gate) Frozen() bool { return g.Reason == c5c3v1alpha1.ReasonNamespaceNotAssigned }

// Order identifies one order: its kind (one of the Kind constants), the
// cluster it lives on (ManagementCluster for the management cluster, else
// the registered target cluster's name), its namespace and its name.
type Order struct {
	Kind      string
	Cluster   string
	Namespace string
	Name      string
}

// OnTargetCluster reports an order on a registered target cluster.
func (o Order) OnTargetCluster() bool { return o.Cluster != ManagementCluster }

// PlaneKey returns the namespace and name spec.controlPlaneRef resolves to
// for an order in orderNamespace: the reference's namespace, or the order's
// own namespace when it is empty (ControlPlaneRefSpec.namespace: "Empty
// means the object's own namespace").
func PlaneKey(ref c5c3v1alpha1.ControlPlaneRefSpec, orderNamespace string) (namespace, name string) {
	if ref.Namespace != "" {
		return ref.Namespace, ref.Name
	}
	return orderNamespace, ref.Name
}

// GateOf decides the shared gates of order o, whose spec.controlPlaneRef is
// ref, against the plane cp it resolves to (nil when it does not resolve).
// First match wins:
//
//  1. ClusterNameTooLong: o lives on a target cluster whose name is longer
//     than MaxClusterNameLength (63) bytes. No assignment can name such a
//     cluster (NamespaceAssignment.cluster is at most 63), so this is the
//     specific cause of what would otherwise read NamespaceNotAssigned.
//  2. ControlPlaneNotFound: cp is nil and o lives on the management cluster.
//  3. NamespaceNotAssigned: cp has no spec.namespaceAssignments entry for
//     o's cluster and namespace, or cp is nil and o lives on a target
//     cluster (docs/reference/keystoneapplicationcredential.md, "Conditions";
//     conditions.go ReasonNamespaceNotAssigned). The target-cluster message is
//     the same in both cases, so a tenant on a target cluster does not learn
//     which planes exist.
//  4. WaitingForAdminCredential: cp's AdminCredentialReady is not True.
func GateOf(o Order, ref c5c3v1alpha1.ControlPlaneRefSpec, cp *c5c3v1alpha1.ControlPlane) Gate {
	ns, name := PlaneKey(ref, o.Namespace)
	if len(o.Cluster) > MaxClusterNameLength {
		return Gate{c5c3v1alpha1.ReasonClusterNameTooLong, fmt.Sprintf(
			"the order lives on cluster %q, whose name is %d characters long; a label value carries at most %d: re-register the cluster under a shorter name",
			o.Cluster, len(o.Cluster), MaxClusterNameLength)}
	}
	if cp == nil && !o.OnTargetCluster() {
		return Gate{c5c3v1alpha1.ReasonControlPlaneNotFound, fmt.Sprintf(
			"ControlPlane %s/%s does not exist: create it or correct spec.controlPlaneRef", ns, name)}
	}
	if _, ok := Assigned(cp, o.Cluster, o.Namespace); !ok {
		// On a target cluster the plane's existence is not disclosed (see
		// above), so the message covers both causes there.
		where, orMissing := "the management cluster", ""
		if o.OnTargetCluster() {
			where, orMissing = fmt.Sprintf("cluster %q", o.Cluster), ", or does not exist"
		}
		return Gate{c5c3v1alpha1.ReasonNamespaceNotAssigned, fmt.Sprintf(
			"ControlPlane %s/%s does not assign namespace %s on %s%s; the order is frozen: ask the plane's operator to add "+
				"{cluster: %q, namespace: %q, allowedRoles: [...]} to its spec.namespaceAssignments (allowedRoles lists the roles a KeystoneRoleAssignment there may assign)",
			ns, name, o.Namespace, where, orMissing, o.Cluster, o.Namespace)}
	}
	if !meta.IsStatusConditionTrue(cp.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady) {
		msg := fmt.Sprintf("ControlPlane %s/%s is not AdminCredentialReady", cp.Namespace, cp.Name)
		if c := meta.FindStatusCondition(cp.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady); c != nil && c.Reason != "" {
			msg += " (" + c.Reason + ")"
		}
		return Gate{c5c3v1alpha1.ReasonWaitingForAdminCredential, msg + ": the order waits for the plane's admin credential"}
	}
	return Gate{}
}
