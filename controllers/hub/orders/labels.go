package orders

import (
	"sort"
	"strings"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// Kinds of the order kinds, the values of LabelOwnerKind on their children.
const (
	KindKeystoneUser                  = "KeystoneUser"
	KindKeystoneProject               = "KeystoneProject"
	KindKeystoneRoleAssignment        = "KeystoneRoleAssignment"
	KindKeystoneApplicationCredential = "KeystoneApplicationCredential"
)

// Ownership label keys of every child an order projects (api/c5c3/v1alpha1).
const (
	LabelOwnerKind      = c5c3v1alpha1.LabelOwnerKind
	LabelOwnerNamespace = c5c3v1alpha1.LabelOwnerNamespace
	LabelOwnerName      = c5c3v1alpha1.LabelOwnerName
	LabelOwnerCluster   = c5c3v1alpha1.LabelOwnerCluster
)

// OwnerLabels are the four ownership labels of o's children; o.Cluster MUST
// be at most MaxClusterNameLength bytes (GateOf).
func OwnerLabels(o Order) map[string]string {
	return map[string]string{
		LabelOwnerKind:      o.Kind,
		LabelOwnerNamespace: o.Namespace,
		LabelOwnerName:      o.Name,
		LabelOwnerCluster:   o.Cluster,
	}
}

// KindLabelKey is "c5c3.io/<lowercased kind>-<field>", field one of name,
// namespace, cluster (docs/reference/keystoneapplicationcredential.md,
// "Projected child names").
func KindLabelKey(kind, field string) string {
	return "c5c3.io/" + strings.ToLower(kind) + "-" + field
}

// KindLabels are the three KindLabelKey labels of o's children
// (docs/reference/keystoneapplicationcredential.md, "Projected child names").
func KindLabels(o Order) map[string]string {
	return map[string]string{
		KindLabelKey(o.Kind, "name"):      o.Name,
		KindLabelKey(o.Kind, "namespace"): o.Namespace,
		KindLabelKey(o.Kind, "cluster"):   o.Cluster,
	}
}

// ChildLabels are OwnerLabels(o) and KindLabels(o) together.
func ChildLabels(o Order) map[string]string {
	l := OwnerLabels(o)
	for k, v := range KindLabels(o) {
		l[k] = v
	}
	return l
}

// OrderOfLabels maps a child's labels back to its order; a missing cluster
// label reads as the management cluster.
func OrderOfLabels(kind string, labels map[string]string) (Order, bool) {
	if labels[LabelOwnerKind] != kind || labels[LabelOwnerName] == "" || labels[LabelOwnerNamespace] == "" {
		return Order{}, false
	}
	return Order{Kind: kind, Cluster: labels[LabelOwnerCluster], Namespace: labels[LabelOwnerNamespace],
		Name: labels[LabelOwnerName]}, true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
