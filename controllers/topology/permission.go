package topology

import (
	"context"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
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

type permissionDesired struct {
	Vhost, User string
	Permissions rabbithole.Permissions
}

// username is spec.user, or the referenced User's status.username
// (userRef.username); own makes that User the Permission's owner.
func (a permissionActuator) username(ctx context.Context, o *rmqv1.Permission, own bool) (string, error) {
	return userRef{kube: a.kube, scheme: a.scheme}.username(ctx, o, o.Spec.User, o.Spec.UserReference, own)
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
