package topology

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// userRef is the user of a Permission or TopicPermission: spec.user, or the
// User resource spec.userReference names in the grant's namespace.
type userRef struct {
	kube   client.Client
	scheme *runtime.Scheme
}

// username is user, or the status.username of the User named by ref; ""
// (with a waiting error) when that is not known yet. With own set, a
// referenced User that exists is made obj's controller owner first.
func (r userRef) username(ctx context.Context, obj client.Object, user string, ref *corev1.LocalObjectReference, own bool) (string, error) {
	if ref == nil {
		return user, nil
	}
	var u rmqv1.User
	if err := r.kube.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: ref.Name}, &u); err != nil {
		if apierrors.IsNotFound(err) {
			return "", waitingf("User %q named by userReference does not exist", ref.Name)
		}
		return "", err
	}
	if own && u.DeletionTimestamp.IsZero() {
		if err := ownByUser(ctx, r.kube, r.scheme, obj, &u); err != nil {
			return "", err
		}
	}
	if u.Status.Username == "" {
		return "", waitingf("User %q has no status.username yet", u.Name)
	}
	return u.Status.Username, nil
}

// cachedUsername is user, or the status.username of the User named by ref
// read from kube (the cache); "" while it does not exist or has none.
func cachedUsername(ctx context.Context, kube client.Reader, namespace, user string, ref *corev1.LocalObjectReference) (string, error) {
	if ref == nil {
		return user, nil
	}
	var u rmqv1.User
	if err := kube.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, &u); err != nil {
		return "", client.IgnoreNotFound(err)
	}
	return u.Status.Username, nil
}

// ownByUser makes u the controller owner of obj, as upstream does for a
// Permission or TopicPermission with userReference
// (github.com/rabbitmq/messaging-topology-operator
// internal/controller/permission_controller.go and
// topicpermission_controller.go, DeclareFunc), so the garbage collector
// deletes it with its User. The reference blocks the owner's foreground
// deletion until obj is gone. It writes only when the reference is missing,
// with a merge patch carrying the resourceVersion; obj is updated from the
// answer.
func ownByUser(ctx context.Context, kube client.Client, scheme *runtime.Scheme, obj client.Object, u *rmqv1.User) error {
	if metav1.IsControlledBy(obj, u) {
		return nil
	}
	before := obj.DeepCopyObject().(client.Object)
	if err := controllerutil.SetControllerReference(u, obj, scheme); err != nil {
		return fmt.Errorf("making User %q the owner: %w", u.Name, err)
	}
	if err := kube.Patch(ctx, obj, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("making User %q the owner: %w", u.Name, err)
	}
	return nil
}
