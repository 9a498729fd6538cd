package orders

import (
	"context"
	"fmt"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/korc"
)

// UserChildName is a KeystoneUser order's K-ORC User name in its plane's
// namespace.
func UserChildName(cluster, namespace, user string) string {
	return korc.OrderChildName(korc.InfixUser, cluster, namespace, user, korc.DiscUser)
}

// ProjectChildName is a KeystoneProject order's K-ORC Project name.
func ProjectChildName(cluster, namespace, project string) string {
	return korc.OrderChildName(korc.InfixProject, cluster, namespace, project, korc.DiscProject)
}

// UserKeystoneID reads a KeystoneUser's Keystone id from its K-ORC User, never
// from the order's status, which others may write (docs/hub.md, "Trust").
// "" while missing. Errors: a read failure other than NotFound.
func UserKeystoneID(ctx context.Context, local client.Reader, planeNS, cluster, namespace, user string) (string, error) {
	return childKeystoneID(ctx, local, planeNS, UserChildName(cluster, namespace, user), &orcv1alpha1.User{}, "K-ORC User of KeystoneUser "+user)
}

// ProjectKeystoneID is UserKeystoneID for a KeystoneProject.
func ProjectKeystoneID(ctx context.Context, local client.Reader, planeNS, cluster, namespace, project string) (string, error) {
	return childKeystoneID(ctx, local, planeNS, ProjectChildName(cluster, namespace, project), &orcv1alpha1.Project{}, "K-ORC Project of KeystoneProject "+project)
}

// childKeystoneID returns korc.IDOf the K-ORC object name ("" when missing).
func childKeystoneID(ctx context.Context, local client.Reader, planeNS, name string, obj interface {
	client.Object
	orcv1alpha1.ObjectWithConditions
}, what string) (string, error) {
	switch err := local.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: name}, obj); {
	case err == nil:
		return korc.IDOf(obj), nil
	case apierrors.IsNotFound(err):
		return "", nil
	default:
		return "", fmt.Errorf("read the %s: %w", what, err)
	}
}
