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

// Ownership label keys of every child an order projects (the shared keys
// of api/c5c3/v1alpha1 labels.go).
const (
	LabelOwnerKind      = c5c3v1alpha1.LabelOwnerKind
	LabelOwnerNamespace = c5c3v1alpha1.LabelOwnerNamespace
	LabelOwnerName      = c5c3v1alpha1.LabelOwnerName
	LabelOwnerCluster   = c5c3v1alpha1.LabelOwnerCluster
)

// OwnerLabels are the four ownership labels of o's children:
// LabelOwnerKind=o.Kind, LabelOwnerNamespace=o.Namespace,
// LabelOwnerName=o.Name and LabelOwnerCluster=o.Cluster (empty for the
// management cluster; a label value may be empty). o.Cluster must be at most
// MaxClusterNameLength bytes, which GateOf enforces before anything is
// projected.
func OwnerLabels(o Order) map[string]string {
	return map[string]string{
		LabelOwnerKind:      o.Kind,
		LabelOwnerNamespace: o.Namespace,
		LabelOwnerName:      o.Name,
		LabelOwnerCluster:   o.Cluster,
	}
}

// KindLabelKey is "c5c3.io/<lowercased kind>-<field>", the per-kind label key
// docs/reference/keystoneapplicationcredential.md names for children
// ("Projected child names": "Each carries three labels:
// c5c3.io/keystoneapplicationcredential-name, ...-namespace and ...-cluster"); field is
// "name", "namespace" or "cluster". The delivered Secret carries the -name
// and -namespace ones ("Delivered Secret contract").
func KindLabelKey(kind, field string) string {
	return "c5c3.io/" + strings.ToLower(kind) + "-" + field
}

// KindLabels are the three per-kind labels
// docs/reference/keystoneapplicationcredential.md ("Projected child names")
// gives every child of o: KindLabelKey(o.Kind, "name")=o.Name,
// "namespace"=o.Namespace and "cluster"=o.Cluster (empty for the management
// cluster). The manual clean-up selector of that page for a deregistered
// cluster matches on these.
func KindLabels(o Order) map[string]string {
	return map[string]string{
		KindLabelKey(o.Kind, "name"):      o.Name,
		KindLabelKey(o.Kind, "namespace"): o.Namespace,
		KindLabelKey(o.Kind, "cluster"):   o.Cluster,
	}
}

// ChildLabels are OwnerLabels(o) and KindLabels(o) together (seven labels),
// the labels every child of o in the ControlPlane's namespace carries.
func ChildLabels(o Order) map[string]string {
	l := OwnerLabels(o)
	for k, v := range KindLabels(o) {
		l[k] = v
	}
	return l
}

// OrderOfLabels maps a child's labels back to its order: ok is false unless
// LabelOwnerKind is kind and LabelOwnerName and LabelOwnerNamespace are
// non-empty. A missing LabelOwnerCluster reads as the management cluster.
func OrderOfLabels(kind string, labels map[string]string) (Order, bool) {
	if labels[LabelOwnerKind] != kind || labels[LabelOwnerName] == "" || labels[LabelOwnerNamespace] == "" {
		return Order{}, false
	}
	return Order{Kind: kind, Cluster: labels[LabelOwnerCluster], Namespace: labels[LabelOwnerNamespace],
		Name: labels[LabelOwnerName]}, true
}

// sortedKeys returns m's keys in order, for deterministic object specs.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
