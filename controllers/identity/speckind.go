package identity

import (
	"context"
	"reflect"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// specKind is the kind, spec and inputs methods of an actuator whose desired
// state is the spec alone (every kind but User and Endpoint, which read
// inputs): kind is the name of the type T points to, which is its Kind; spec
// is obj.Spec; inputs is none.
type specKind[T object] struct{}

func (specKind[T]) kind() string { return reflect.TypeFor[T]().Elem().Name() }

func (specKind[T]) spec(obj T) any {
	return reflect.ValueOf(obj).Elem().FieldByName("Spec").Interface()
}

func (specKind[T]) inputs(context.Context, client.Reader, T) (map[string]string, error) {
	return nil, nil
}
