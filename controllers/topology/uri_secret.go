package topology

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// uriSecretValues reads keys of the Secret ref names in namespace, the
// uriSecret of a Shovel or Federation (upstream reads it the same way:
// github.com/rabbitmq/messaging-topology-operator,
// internal/controller/shovel_controller.go and federation_controller.go).
// Values are returned in the order of keys. Errors: ref unset (remedy
// named), a missing Secret or an empty key (waiting errors naming it), a
// failed read.
func uriSecretValues(ctx context.Context, kube client.Reader, namespace string, ref *corev1.LocalObjectReference,
	keys ...string) ([]string, error) {
	if ref == nil || ref.Name == "" {
		return nil, fmt.Errorf("spec.uriSecret names no Secret: name a Secret with the key(s) %s", strings.Join(keys, " and "))
	}
	var s corev1.Secret
	if err := kube.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, &s); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, waitingf("Secret %q named by uriSecret does not exist", ref.Name)
		}
		return nil, err
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		if len(s.Data[k]) == 0 {
			return nil, waitingf("Secret %q named by uriSecret has no %q key", s.Name, k)
		}
		out[i] = string(s.Data[k])
	}
	return out, nil
}
