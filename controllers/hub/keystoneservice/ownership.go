package keystoneservice

import (
	"context"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/korc"
)

// managedElsewhere returns "<kind> <namespace>/<name>" of another hub
// parent (a registration or an order) whose managed K-ORC child of list's
// kind in ns already resolved to the Keystone id, or "" when none does.
// Adoption takes over a row nobody manages; it must never take one another
// registration owns, because both would then delete it on teardown and fight
// over its fields (docs/reference/keystoneservice.md, "Collision and
// adoption": adoption means ownership).
func (r *Reconciler) managedElsewhere(ctx context.Context, list client.ObjectList, ns, id string,
	ks *c5c3v1alpha1.KeystoneService) (string, error) {
	if id == "" {
		return "", nil
	}
	if err := r.client.List(ctx, list, client.InNamespace(ns), client.HasLabels{LabelOwnerKind}); err != nil {
		return "", err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return "", err
	}
	mine := ChildLabels(ks)
	for _, it := range items {
		o, ok := it.(orcv1alpha1.ObjectWithConditions)
		if !ok || korc.IDOf(o) != id || !isManaged(o) {
			continue
		}
		l := o.GetLabels()
		if l[LabelOwnerKind] == mine[LabelOwnerKind] && l[LabelOwnerNamespace] == mine[LabelOwnerNamespace] &&
			l[LabelOwnerName] == mine[LabelOwnerName] && l[LabelOwnerCluster] == mine[LabelOwnerCluster] {
			continue
		}
		return l[LabelOwnerKind] + " " + l[LabelOwnerNamespace] + "/" + l[LabelOwnerName], nil
	}
	return "", nil
}

func isManaged(o orcv1alpha1.ObjectWithConditions) bool {
	switch v := o.(type) {
	case *orcv1alpha1.Service:
		return v.Spec.ManagementPolicy == orcv1alpha1.ManagementPolicyManaged
	case *orcv1alpha1.User:
		return v.Spec.ManagementPolicy == orcv1alpha1.ManagementPolicyManaged
	case *orcv1alpha1.Project:
		return v.Spec.ManagementPolicy == orcv1alpha1.ManagementPolicyManaged
	}
	return false
}
