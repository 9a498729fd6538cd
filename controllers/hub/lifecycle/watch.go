package lifecycle

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// InNamespace maps an object to every object of list type L in its namespace,
// read through c; a failing list maps to nothing.
func InNamespace[L any, LP interface {
	*L
	client.ObjectList
}](c client.Client) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		list := LP(new(L))
		if err := c.List(ctx, list, client.InNamespace(o.GetNamespace())); err != nil {
			return nil
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil
		}
		reqs := make([]reconcile.Request, 0, len(items))
		for _, it := range items {
			if obj, ok := it.(client.Object); ok {
				reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
			}
		}
		return reqs
	}
}
