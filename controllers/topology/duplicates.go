package topology

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/c5c3/orderhub/internal/declaration"
)

// Several resources served by this controller may declare one broker object
// (docs/topology.md, "Several declarations of one broker object"). The
// oldest (internal/declaration) declares it; every other one writes nothing
// to the broker and reports Ready=False (DuplicateDeclaration) naming the
// oldest, and takes over when the oldest is deleted. The broker object is
// deleted only by the last declaration left. All served resources talk to
// the one broker of this controller, so the declarations of every watched
// namespace take part.

// duplicateError is the Ready=False of a declaration that is not the oldest.
type duplicateError struct {
	kind, what  string
	self, owner declaration.Of
}

func (e *duplicateError) Error() string {
	return fmt.Sprintf("%s %s declares the same RabbitMQ %s as %s %s, the oldest declaration, which declares it: "+
		"nothing is written to RabbitMQ for this resource while %s exists; delete one of the two",
		e.kind, e.self.Name, e.what, e.kind, nameFrom(e.owner, e.self), e.owner.Name)
}

// nameFrom names d as seen from self: its name, with its namespace when it
// is another one.
func nameFrom(d, self declaration.Of) string {
	if d.Namespace == self.Namespace {
		return d.Name
	}
	return d.Namespace + "/" + d.Name
}

func isDuplicate(err error) bool {
	var d *duplicateError
	return errors.As(err, &d)
}

// duplicateConflict is the decision for self among the other live, served
// declarations of its object: nil when self is the oldest, else the error
// its Ready reports.
func duplicateConflict(kind, what string, self declaration.Of, others []declaration.Of) error {
	if len(others) == 0 {
		return nil
	}
	owner := declaration.Oldest(append([]declaration.Of{self}, others...))
	if owner.UID == self.UID {
		return nil
	}
	return &duplicateError{kind: kind, what: what, self: self, owner: owner}
}

// otherDeclarations lists the other resources of the kind, served by this
// controller and not being deleted, that declare the object obj declares
// (in every namespace the cache holds). what names the object; it is ""
// (and the list empty) when obj's object is not known yet.
func (r *kindActuator[T]) otherDeclarations(ctx context.Context, obj T) (what string, others []declaration.Of, err error) {
	d, ok := r.act.(declarer[T])
	if !ok { // only test actuators: every kind's declares (declares.go)
		return "", nil, nil
	}
	key, what, err := d.declares(ctx, r.client, obj)
	if err != nil || key == "" {
		return "", nil, err
	}
	list := r.newList()
	if err := r.client.List(ctx, list, client.MatchingFields{declaresIndex: declaresValue(d.indexKey(obj))}); err != nil {
		return "", nil, fmt.Errorf("listing other declarations: %w", err)
	}
	items, err := apimeta.ExtractList(list)
	if err != nil {
		return "", nil, err
	}
	for _, it := range items {
		o, ok := it.(T)
		if !ok || o.GetUID() == obj.GetUID() || !o.GetDeletionTimestamp().IsZero() ||
			ownership(o.ClusterReference(), o.GetNamespace(), r.opts.ClusterName, r.opts.Namespace) != "" {
			continue
		}
		if k, _, err := d.declares(ctx, r.client, o); err != nil {
			return "", nil, err
		} else if k == key {
			others = append(others, declaration.FromObject(o))
		}
	}
	return what, others, nil
}

// duplicate returns the duplicateError of obj, nil when obj is the oldest
// declaration of its object (or the only one), or the cache's error.
func (r *kindActuator[T]) duplicate(ctx context.Context, obj T) error {
	what, others, err := r.otherDeclarations(ctx, obj)
	if err != nil {
		return err
	}
	return duplicateConflict(r.kind, what, declaration.FromObject(obj), others)
}

// keptForOthers reports whether another resource still declares the broker
// object of obj, which is being deleted; then it emits StillDeclared and
// the object is kept.
func (r *kindActuator[T]) keptForOthers(ctx context.Context, obj T) (bool, error) {
	what, others, err := r.otherDeclarations(ctx, obj)
	if err != nil || len(others) == 0 {
		return false, err
	}
	self := declaration.FromObject(obj)
	r.events.Eventf(obj, nil, corev1.EventTypeNormal, EventReasonStillDeclared, EventActionDelete,
		"%s kept in RabbitMQ: %s %s declares it too", what, r.kind, nameFrom(declaration.Oldest(others), self))
	return true, nil
}

// declarationsOfSameObject maps a resource to the other resources of its
// kind indexed under the same object, so a younger declaration takes over
// as soon as the oldest is deleted (the watch's predicate: declarationLeft).
func declarationsOfSameObject[T object](kube client.Reader, d declarer[T], newList func() client.ObjectList) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		t, ok := o.(T)
		if !ok || d.indexKey(t) == "" {
			return nil
		}
		list := newList()
		if err := kube.List(ctx, list, client.MatchingFields{declaresIndex: declaresValue(d.indexKey(t))}); err != nil {
			return nil
		}
		var out []reconcile.Request
		_ = apimeta.EachListItem(list, func(it runtime.Object) error {
			if m, ok := it.(client.Object); ok && m.GetUID() != o.GetUID() {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(m)})
			}
			return nil
		})
		return out
	}
}

// declarationLeft passes the events after which another declaration of the
// same object may take over: a deletion (begun or done) and a change of the
// object a resource declares (a User's status.username).
func declarationLeft[T object](d declarer[T]) predicate.Funcs {
	return deletedOr(func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(T)
		n, ok2 := e.ObjectNew.(T)
		return ok1 && ok2 && (o.GetDeletionTimestamp().IsZero() != n.GetDeletionTimestamp().IsZero() ||
			d.indexKey(o) != d.indexKey(n))
	})
}
