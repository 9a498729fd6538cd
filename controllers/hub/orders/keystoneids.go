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

// UserChildName is a KeystoneUser order's managed K-ORC User in its plane's
// namespace (naming contract between kinds: korc.OrderChildName with
// korc.InfixUser and korc.DiscUser).
func UserChildName(cluster, namespace, user string) string {
	return korc.OrderChildName(korc.InfixUser, cluster, namespace, user, korc.DiscUser)
}

// ProjectChildName is a KeystoneProject order's managed K-ORC Project in its
// plane's namespace (korc.InfixProject, korc.DiscProject).
func ProjectChildName(cluster, namespace, project string) string {
	return korc.OrderChildName(korc.InfixProject, cluster, namespace, project, korc.DiscProject)
}

// UserKeystoneID reads the Keystone id of the KeystoneUser user of
// namespace on cluster from its K-ORC User in the plane's namespace planeNS,
// through local (the management cluster). Only the hub and K-ORC write
// there, while an order's own status can be written by whoever may update
// its status subresource (on a target cluster, that cluster's
// administrators), so an id that reaches Keystone on the hub's credentials
// (a grant, a revoke, a mint login) is taken from here and never from an
// order's status (docs/hub.md "Trust"). "" while the child is missing or
// K-ORC reports no id yet. Errors: a read failure other than NotFound.
func UserKeystoneID(ctx context.Context, local client.Reader, planeNS, cluster, namespace, user string) (string, error) {
	return childKeystoneID(ctx, local, planeNS, UserChildName(cluster, namespace, user), &orcv1alpha1.User{}, "K-ORC User of KeystoneUser "+user)
}

// ProjectKeystoneID is UserKeystoneID for the KeystoneProject project and
// its K-ORC Project.
func ProjectKeystoneID(ctx context.Context, local client.Reader, planeNS, cluster, namespace, project string) (string, error) {
	return childKeystoneID(ctx, local, planeNS, ProjectChildName(cluster, namespace, project), &orcv1alpha1.Project{}, "K-ORC Project of KeystoneProject "+project)
}

// childKeystoneID reads the K-ORC object name of planeNS into obj and
// returns its Keystone id (korc.IDOf): "" when it is missing or reports
// none. Errors: a read failure other than NotFound, naming what.
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
