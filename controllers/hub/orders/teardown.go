package orders

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TeardownStep is what an order's finalizer does in one deletion pass.
type TeardownStep string

const (
	// TeardownNone: the finalizer is not installed; nothing to do.
	TeardownNone TeardownStep = "None"
	// TeardownHold: a credential order still needs the order (Held); the
	// deletion waits (ReferencedByApplicationCredentials) and nothing is
	// deleted or revoked.
	TeardownHold TeardownStep = "Hold"
	// TeardownWait: deletes (or a revoke) were issued and failed, or
	// children are still listed.
	TeardownWait TeardownStep = "Wait"
	// TeardownRelease: remove the finalizer.
	TeardownRelease TeardownStep = "Release"
)

// DecideTeardown decides a deletion pass after its deletes were issued
// (docs/reference/keystoneproject.md and keystoneroleassignment.md
// "Deletion Semantics"): without the finalizer nothing; held while held
// holds; with the plane gone release after one pass (K-ORC has nothing left
// to reach Keystone with); else wait while a child is listed (left counts
// the children listed before this pass's deletes) or a step failed.
func DecideTeardown(hasFinalizer bool, held Held, planeExists bool, left int, failed bool) TeardownStep {
	switch {
	case !hasFinalizer:
		return TeardownNone
	case held.Holding():
		return TeardownHold
	case !planeExists:
		return TeardownRelease
	case left > 0 || failed:
		return TeardownWait
	}
	return TeardownRelease
}

// RequeueAfter is the delay before an order's next unprompted pass:
// readyResync for a Ready order, notReady otherwise, capped by CapTarget.
func RequeueAfter(ready, onTarget bool, readyResync, notReady time.Duration) time.Duration {
	d := notReady
	if ready {
		d = readyResync
	}
	return CapTarget(d, onTarget)
}

// CapTarget bounds the requeue d of an order on a target cluster (onTarget)
// by RequeueTarget: its children's watches cannot wake it, so it polls.
// d == 0 (no requeue) becomes RequeueTarget there. Off target d is kept.
func CapTarget(d time.Duration, onTarget bool) time.Duration {
	if onTarget && (d == 0 || d > RequeueTarget) {
		return RequeueTarget
	}
	return d
}

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

// SweepChildren deletes through c (DeleteIfExists) every child listed by
// ListChildren from r for each of lists that is not being deleted yet, and
// returns how many children were listed. A failed list or delete does not
// stop the sweep; the errors are joined.
func SweepChildren(ctx context.Context, r client.Reader, c client.Client, ns string, lbl map[string]string, lists ...client.ObjectList) (int, error) {
	left := 0
	var errs []error
	for _, l := range lists {
		items, err := ListChildren(ctx, r, l, ns, lbl)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, o := range items {
			left++
			if o.GetDeletionTimestamp().IsZero() {
				errs = append(errs, DeleteIfExists(ctx, c, o))
			}
		}
	}
	return left, errors.Join(errs...)
}
