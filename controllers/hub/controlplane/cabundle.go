package controlplane

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// ReadCABundle reads the Keystone CA bundle cp references (CABundleRef,
// External mode) through r: referenced is false when cp names none; ca is
// nil when the Secret is absent. Errors: a read failure other than NotFound
// ("read the Keystone CA bundle <ns>/<name>: ...").
func ReadCABundle(ctx context.Context, r client.Reader, cp *c5c3v1alpha1.ControlPlane) (ca []byte, referenced bool, err error) {
	name, key, ok := CABundleRef(cp)
	if !ok {
		return nil, false, nil
	}
	var s corev1.Secret
	switch err := r.Get(ctx, types.NamespacedName{Namespace: cp.Namespace, Name: name}, &s); {
	case apierrors.IsNotFound(err):
		return nil, true, nil
	case err != nil:
		return nil, true, fmt.Errorf("read the Keystone CA bundle %s/%s: %w", cp.Namespace, name, err)
	}
	return s.Data[key], true, nil
}
