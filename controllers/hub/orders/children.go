package orders

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// UnlabelableValues returns the keys of lbl whose value is no valid label
// value (validation.IsValidLabelValue: at most 63 bytes, alphanumeric at both
// ends, '-', '_' and '.' between), sorted; nil when every value is valid.
// The API server refuses such a value on every write, so no object carries
// it, and it refuses a list whose label selector holds it (400 Bad
// Request). A selector built from an owner that admission let through with
// an over-long name or cluster name therefore matches nothing and must not
// be sent: an order stuck on its first child is still deleted (see
// ListChildren).
func UnlabelableValues(lbl map[string]string) []string {
	var bad []string
	for _, k := range sortedKeys(lbl) {
		if len(validation.IsValidLabelValue(lbl[k])) > 0 {
			bad = append(bad, k)
		}
	}
	return bad
}

// ListChildren lists the objects of list's kind in ns labelled lbl (an
// order's ChildLabels) through r, the management cluster's cache, which
// must hold IndexOwner for the kind (IndexChildren). A kind whose CRD is not
// installed (meta.IsNoMatchError) lists nothing, and so does a selector
// holding a value no label can carry (UnlabelableValues): no child can have
// been written with it, and the API server would refuse the list, wedging
// the finalizer. Errors: lbl names no order (OrderOfLabels), or the list
// failed (wrapped).
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

// ChildLister lists one order's children of list's kind in namespace ns
// (ListChildren with the order's ChildLabels, or a kind's own selector).
type ChildLister func(ctx context.Context, list client.ObjectList, ns string) ([]client.Object, error)

// OwnerLister is the ChildLister of the order lbl names (its
// ChildLabels): ListChildren through r.
func OwnerLister(r client.Reader, lbl map[string]string) ChildLister {
	return func(ctx context.Context, list client.ObjectList, ns string) ([]client.Object, error) {
		return ListChildren(ctx, r, list, ns, lbl)
	}
}

// ChildSet is one kind of an order's children.
type ChildSet struct {
	// List returns an empty list of the kind.
	List func() client.ObjectList
	// InOrderNamespace: the children live in the order's own namespace on
	// the management cluster, not in the ControlPlane's.
	InOrderNamespace bool
	// Select picks the set's children among those listed; nil picks all.
	// What it leaves out is neither deleted nor counted.
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

// Sweep deletes through c (DeleteIfExists) every child of sets that list
// finds (in planeNS, or orderNS for InOrderNamespace) and that is not being
// deleted yet, and returns how many children were listed. A failed list or
// delete does not stop the sweep; the errors are joined.
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
