package apply

import (
	"context"
	"errors"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// ErrOwnedElsewhere is matched (errors.Is) by an *OwnedElsewhereError.
var ErrOwnedElsewhere = errors.New("apply: the child's name is taken by an object of another owner")

// ownerKeys are the ownership labels every child of an order or registration
// carries (api/c5c3/v1alpha1 labels.go).
var ownerKeys = []string{c5c3v1alpha1.LabelOwnerKind, c5c3v1alpha1.LabelOwnerNamespace,
	c5c3v1alpha1.LabelOwnerName, c5c3v1alpha1.LabelOwnerCluster}

// OwnedElsewhereError refuses a child write: an object of the child's kind
// and name exists whose ownership labels name another owner, or none
// (ChildOwnedElsewhere, docs/reference/keystoneuser.md, "Conditions").
// Owner holds the existing object's ownership labels for the caller to
// redact; Error names the object, never its owner.
type OwnedElsewhereError struct {
	Kind, Namespace, Name string
	Owner                 map[string]string
}

func (e *OwnedElsewhereError) Error() string {
	return fmt.Sprintf("%s %s/%s exists and is not this owner's child: its ownership labels name another owner or none",
		e.Kind, e.Namespace, e.Name)
}

// Is makes errors.Is(err, ErrOwnedElsewhere) true.
func (e *OwnedElsewhereError) Is(target error) bool { return target == ErrOwnedElsewhere }

// SameOwner reports whether have carries want's four ownership labels; a
// missing cluster label reads as the management cluster (""). Pure.
func SameOwner(have, want map[string]string) bool {
	for _, k := range ownerKeys {
		if have[k] != want[k] {
			return false
		}
	}
	_, wantCluster := want[c5c3v1alpha1.LabelOwnerCluster]
	return wantCluster || have[c5c3v1alpha1.LabelOwnerCluster] == ""
}

// ReadOwned reads the object of obj's kind, namespace and name through r
// and returns it (nil when absent or its kind is not installed; the write
// then fails on its own), refusing with an *OwnedElsewhereError (also
// recorded in ctx's Refusals) when it exists without obj's ownership
// labels. An obj without c5c3v1alpha1.LabelOwnerKind is no order's child:
// nothing is read, and it passes with nil. The returned object is a copy of
// obj's type the caller may keep; obj is not modified. Errors: the refusal,
// or the read failing.
func ReadOwned(ctx context.Context, r client.Reader, obj client.Object) (client.Object, error) {
	want := obj.GetLabels()
	if want[c5c3v1alpha1.LabelOwnerKind] == "" {
		return nil, nil
	}
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	cur, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return nil, fmt.Errorf("apply: guard %s %s/%s: %T is not a client.Object copy", kind, obj.GetNamespace(), obj.GetName(), obj)
	}
	err := r.Get(ctx, client.ObjectKeyFromObject(obj), cur)
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("apply: read %s %s/%s: %w", kind, obj.GetNamespace(), obj.GetName(), err)
	case SameOwner(cur.GetLabels(), want):
		return cur, nil
	}
	owner := map[string]string{}
	for _, k := range ownerKeys {
		if v, ok := cur.GetLabels()[k]; ok {
			owner[k] = v
		}
	}
	refusal := &OwnedElsewhereError{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), Owner: owner}
	if rs, ok := ctx.Value(refusalsKey{}).(*Refusals); ok {
		rs.add(refusal)
	}
	return nil, refusal
}

// Refusals collects the OwnedElsewhereErrors of one pass, also those a
// caller swallowed, so one shared layer can report them
// (orders.Loop). Safe for concurrent use.
type Refusals struct {
	mu    sync.Mutex
	first *OwnedElsewhereError
}

type refusalsKey struct{}

// WithRefusals returns ctx carrying a new, empty Refusals that ReadOwned
// records into.
func WithRefusals(ctx context.Context) (context.Context, *Refusals) {
	rs := &Refusals{}
	return context.WithValue(ctx, refusalsKey{}, rs), rs
}

func (rs *Refusals) add(e *OwnedElsewhereError) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.first == nil {
		rs.first = e
	}
}

// First is the first refusal recorded, nil when none.
func (rs *Refusals) First() *OwnedElsewhereError {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.first
}
