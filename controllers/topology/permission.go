package topology

import (
	"context"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// permissionActuator declares a Permission: PUT /api/permissions/{vhost}/{user}.
type permissionActuator struct {
	broker *rabbithole.Client
	kube   client.Client
	scheme *runtime.Scheme
}

var _ actuator[*rmqv1.Permission] = permissionActuator{}

type permissionDesired struct {
	Vhost, User string
	Permissions rabbithole.Permissions
}

// username is spec.user, or the status.username of the User named by
// spec.userReference; "" (with a reason) when that is not known yet. With
// own set, a referenced User that exists is made the Permission's
// controller owner first.
func (a permissionActuator) username(ctx context.Context, o *rmqv1.Permission, own bool) (string, error) {
	if o.Spec.UserReference == nil {
		return o.Spec.User, nil
	}
	var u rmqv1.User
	if err := a.kube.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Spec.UserReference.Name}, &u); err != nil {
		if apierrors.IsNotFound(err) {
			return "", waitingf("User %q named by userReference does not exist", o.Spec.UserReference.Name)
		}
		return "", err
	}
	if own && u.DeletionTimestamp.IsZero() {
		if err := ownPermissionByUser(ctx, a.kube, a.scheme, o, &u); err != nil {
			return "", err
		}
	}
	if u.Status.Username == "" {
		return "", waitingf("User %q has no status.username yet", u.Name)
	}
	return u.Status.Username, nil
}

func (a permissionActuator) Resolve(ctx context.Context, o *rmqv1.Permission) (any, error) {
	user, err := a.username(ctx, o, true)
	if err != nil {
		return nil, err
	}
	return permissionDesired{Vhost: o.Spec.Vhost, User: user, Permissions: rabbithole.Permissions{
		Configure: o.Spec.Permissions.Configure, Write: o.Spec.Permissions.Write, Read: o.Spec.Permissions.Read}}, nil
}

func (a permissionActuator) Declare(_ context.Context, _ *rmqv1.Permission, desired any) error {
	d := desired.(permissionDesired)
	return rabbitmq.Done(a.broker.UpdatePermissionsIn(d.Vhost, d.User, d.Permissions))
}

// Delete clears the permissions. A user or vhost already gone in the broker
// answers 404, which counts as success; a referenced User resource already
// gone means its broker user, and with it the permissions, went first.
func (a permissionActuator) Delete(ctx context.Context, o *rmqv1.Permission) error {
	user, err := a.username(ctx, o, false)
	if err != nil {
		if o.Spec.UserReference != nil && isWaiting(err) {
			return nil
		}
		return err
	}
	return rabbitmq.Done(a.broker.ClearPermissionsIn(o.Spec.Vhost, user))
}
