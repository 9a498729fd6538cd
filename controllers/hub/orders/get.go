package orders

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// GetOrNil reads the E namespace/name names through c; nil and no error when
// it does not exist. Errors: any other read failure, unwrapped.
func GetOrNil[E any, P interface {
	*E
	client.Object
}](ctx context.Context, c client.Reader, namespace, name string) (P, error) {
	obj := P(new(E))
	if err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return obj, nil
}
