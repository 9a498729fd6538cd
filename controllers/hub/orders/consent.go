package orders

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
)

// ManagementCluster is the cluster name of an order on the management cluster
// (docs/reference/keystoneapplicationcredential.md, "Projected child names").
const ManagementCluster = ""

// MaxClusterNameLength is the longest target-cluster name in bytes: it is a
// label value (docs/reference/keystoneapplicationcredential.md, "Conditions").
const MaxClusterNameLength = 63

// Assigned returns cp's spec.namespaceAssignments entry for cluster and
// namespace, compared exactly; nil cp assigns nothing. The pointer aliases cp
// (docs/reference/keystoneapplicationcredential.md, "Consent").
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

// RoleAllowed reports whether a lists role in allowedRoles; nil allows nothing.
// It compares with strings.EqualFold because Keystone's role names collate
// case-insensitively; it may refuse, never admit, what Keystone folds further.
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

// Order identifies one order by kind, cluster (ManagementCluster or a target
// cluster's name), namespace and name.
type Order struct {
	Kind      string
	Cluster   string
	Namespace string
	Name      string
}

// OnTargetCluster reports an order on a registered target cluster.
func (o Order) OnTargetCluster() bool { return o.Cluster != ManagementCluster }

// PlaneKey returns the ControlPlane ref resolves to; an empty namespace means
// orderNamespace.
func PlaneKey(ref c5c3v1alpha1.ControlPlaneRefSpec, orderNamespace string) (namespace, name string) {
	if ref.Namespace != "" {
		return ref.Namespace, ref.Name
	}
	return orderNamespace, ref.Name
}

// GateOf decides the shared gates of o against cp (nil when ref does not
// resolve), first match wins: ClusterNameTooLong, ControlPlaneNotFound,
// NamespaceNotAssigned (also for a missing plane on a target cluster, so its
// existence is not disclosed), WaitingForAdminCredential
// (docs/reference/keystoneapplicationcredential.md, "Conditions").
func GateOf(o Order, ref c5c3v1alpha1.ControlPlaneRefSpec, cp *c5c3v1alpha1.ControlPlane) conditions.Gate {
	ns, name := PlaneKey(ref, o.Namespace)
	if len(o.Cluster) > MaxClusterNameLength {
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonClusterNameTooLong, Message: fmt.Sprintf(
			"the order lives on cluster %q, whose name is %d characters long; a label value carries at most %d: re-register the cluster under a shorter name",
			o.Cluster, len(o.Cluster), MaxClusterNameLength)}
	}
	if cp == nil && !o.OnTargetCluster() {
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonControlPlaneNotFound, Message: fmt.Sprintf(
			"ControlPlane %s/%s does not exist: create it or correct spec.controlPlaneRef", ns, name)}
	}
	if _, ok := Assigned(cp, o.Cluster, o.Namespace); !ok {
		where, orMissing := "the management cluster", ""
		if o.OnTargetCluster() {
			where, orMissing = fmt.Sprintf("cluster %q", o.Cluster), ", or does not exist"
		}
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonNamespaceNotAssigned, Message: fmt.Sprintf(
			"ControlPlane %s/%s does not assign namespace %s on %s%s; the order is frozen: ask the plane's operator to add "+
				"{cluster: %q, namespace: %q, allowedRoles: [...]} to its spec.namespaceAssignments (allowedRoles lists the roles a KeystoneRoleAssignment there may assign)",
			ns, name, o.Namespace, where, orMissing, o.Cluster, o.Namespace)}
	}
	if !meta.IsStatusConditionTrue(cp.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady) {
		msg := fmt.Sprintf("ControlPlane %s/%s is not AdminCredentialReady", cp.Namespace, cp.Name)
		if c := meta.FindStatusCondition(cp.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady); c != nil && c.Reason != "" {
			msg += " (" + c.Reason + ")"
		}
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForAdminCredential, Message: msg + ": the order waits for the plane's admin credential"}
	}
	return conditions.Gate{}
}
