package topology

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// ownPermissionByUser makes u the controller owner of p, as upstream does for
// a Permission with userReference (github.com/rabbitmq/messaging-topology-operator
// internal/controller/permission_controller.go, DeclareFunc), so the garbage
// collector deletes the Permission with its User. The reference blocks the
// owner's foreground deletion until the Permission is gone. It writes only
// when the reference is missing, with a merge patch carrying the
// resourceVersion; p is updated from the answer.
func ownPermissionByUser(ctx context.Context, kube client.Client, scheme *runtime.Scheme, p *rmqv1.Permission, u *rmqv1.User) error {
	if metav1.IsControlledBy(p, u) {
		return nil
	}
	before := p.DeepCopy()
	if err := controllerutil.SetControllerReference(u, p, scheme); err != nil {
		return fmt.Errorf("making User %q the Permission's owner: %w", u.Name, err)
	}
	if err := kube.Patch(ctx, p, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("making User %q the Permission's owner: %w", u.Name, err)
	}
	return nil
}
