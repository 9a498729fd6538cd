package testenv

import (
	"context"
	"fmt"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// HubScheme returns a scheme with client-go's, c5c3.io's and K-ORC's types:
// what the hub's reconcilers and their tests read and write.
func HubScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, c5c3v1alpha1.AddToScheme, orcv1alpha1.AddToScheme} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// SeedOpenBaoToken creates namespace ns (unless it exists) and the Secret
// ns/name holding the stack's OpenBao token under key: the Secret the
// ControlPlane reconciler copies into the SecretStores it provisions
// (controlplane.Options.OpenBao.TokenSecret). It returns the Secret's key.
func (s *Stack) SeedOpenBaoToken(ctx context.Context, c client.Client, ns, name, key string) (types.NamespacedName, error) {
	if s.OpenBao == nil {
		return types.NamespacedName{}, fmt.Errorf("testenv: the stack runs no OpenBao-compatible server")
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return types.NamespacedName{}, err
	}
	if err := c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Data: map[string][]byte{key: []byte(s.OpenBao.Token)}}); err != nil {
		return types.NamespacedName{}, err
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}
