package orders

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// UnlabelableValues returns the sorted keys of lbl whose value is no valid
// label value, nil when all are valid. The API server refuses a selector
// holding one, so such a selector must not be sent.
func UnlabelableValues(lbl map[string]string) []string {
	var bad []string
	for _, k := range sortedKeys(lbl) {
		if len(validation.IsValidLabelValue(lbl[k])) > 0 {
			bad = append(bad, k)
		}
	}
	return bad
}

// ListChildren lists list's kind in ns labelled lbl through r, a cache holding
// IndexOwner. A kind not installed, or an unlabelable lbl, lists nothing, so a
// finalizer cannot wedge. Errors: lbl names no order, or the list failed.
func ListChildren(ctx context.Context, r client.Reader, list client.ObjectList, ns string, lbl map[string]string) ([]client.Object, error) {
	if len(UnlabelableValues(lbl)) > 0 {
		return nil, nil
	}
	o, ok := OrderOfLabels(lbl[LabelOwnerKind], lbl)
	if !ok {
		return nil, fmt.Errorf("list the order's children: the labels %v name no order", lbl)
	}
	if err := r.List(ctx, list, client.InNamespace(ns), client.MatchingFields{IndexOwner: OwnerKey(o)},
		client.MatchingLabels(lbl)); err != nil {
		if meta.IsNoMatchError(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("list the order's children: %w", err)
	}
	return Objects(list)
}

// Objects returns the items of list as objects. Errors: list is no list.
func Objects(list client.ObjectList) ([]client.Object, error) {
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, 0, len(items))
	for _, it := range items {
		if o, ok := it.(client.Object); ok {
			out = append(out, o)
		}
	}
	return out, nil
}

// ChildLister lists one order's children of list's kind in namespace ns.
type ChildLister func(ctx context.Context, list client.ObjectList, ns string) ([]client.Object, error)

// OwnerLister is the ChildLister of the order lbl names.
func OwnerLister(r client.Reader, lbl map[string]string) ChildLister {
	return func(ctx context.Context, list client.ObjectList, ns string) ([]client.Object, error) {
		return ListChildren(ctx, r, list, ns, lbl)
	}
}

type ChildSet struct {
	List func() client.ObjectList
	// InOrderNamespace: the children live in the order's namespace, not the
	// ControlPlane's.
	InOrderNamespace bool
	// Select picks the set's children; the rest is neither deleted nor counted.
	Select func(client.Object) bool
}

// Lists returns an empty list of each set's kind (for IndexChildren).
func Lists(sets ...ChildSet) []client.ObjectList {
	out := make([]client.ObjectList, 0, len(sets))
	for _, s := range sets {
		out = append(out, s.List())
	}
	return out
}

// Sweep deletes every listed child of sets not yet being deleted and returns
// how many were listed; failures do not stop it and are joined.
func Sweep(ctx context.Context, list ChildLister, c client.Client, planeNS, orderNS string, sets ...ChildSet) (int, error) {
	left := 0
	var errs []error
	for _, s := range sets {
		ns := planeNS
		if s.InOrderNamespace {
			ns = orderNS
		}
		items, err := list(ctx, s.List(), ns)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, o := range items {
			if s.Select != nil && !s.Select(o) {
				continue
			}
			left++
			if o.GetDeletionTimestamp().IsZero() {
				errs = append(errs, DeleteIfExists(ctx, c, o))
			}
		}
	}
	return left, errors.Join(errs...)
}
