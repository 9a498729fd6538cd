package topology

import (
	"context"
	"fmt"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// topicPermissionActuator declares a TopicPermission:
// PUT /api/topic-permissions/{vhost}/{user} with the exchange in the body;
// deletion is DELETE /api/topic-permissions/{vhost}/{user}/{exchange}, so
// the user's topic permissions on other exchanges stay (as upstream,
// internal/controller/topicpermission_controller.go).
type topicPermissionActuator struct {
	broker *rabbithole.Client
	users  userRef
}

type topicPermissionDesired struct {
	Vhost, User string
	Permissions rabbithole.TopicPermissions
}

func (a topicPermissionActuator) Resolve(ctx context.Context, o *rmqv1.TopicPermission) (any, error) {
	user, err := a.users.username(ctx, o, o.Spec.User, o.Spec.UserReference, true)
	if err != nil {
		return nil, err
	}
	p := o.Spec.Permissions
	return topicPermissionDesired{Vhost: o.Spec.Vhost, User: user,
		Permissions: rabbithole.TopicPermissions{Exchange: p.Exchange, Write: p.Write, Read: p.Read}}, nil
}

func (a topicPermissionActuator) Declare(_ context.Context, _ *rmqv1.TopicPermission, desired any) error {
	d := desired.(topicPermissionDesired)
	return rabbitmq.Done(a.broker.UpdateTopicPermissionsIn(d.Vhost, d.User, d.Permissions))
}

// Delete removes the topic permissions on the exchange. A user or vhost
// already gone answers 404, which counts as success; a referenced User
// resource already gone means its broker user, and with it the
// permissions, went first.
func (a topicPermissionActuator) Delete(ctx context.Context, o *rmqv1.TopicPermission) error {
	user, err := a.users.username(ctx, o, o.Spec.User, o.Spec.UserReference, false)
	if err != nil {
		if o.Spec.UserReference != nil && isWaiting(err) {
			return nil
		}
		return err
	}
	return rabbitmq.Done(a.broker.DeleteTopicPermissionsIn(o.Spec.Vhost, user, o.Spec.Permissions.Exchange))
}

// indexKey is the vhost and exchange; the username of a userReference is
// the User's.
func (topicPermissionActuator) indexKey(o *rmqv1.TopicPermission) string {
	return "topic-permissions\x00" + o.Spec.Vhost + "\x00" + o.Spec.Permissions.Exchange
}

func (a topicPermissionActuator) declares(ctx context.Context, kube client.Reader, o *rmqv1.TopicPermission) (string, string, error) {
	user, err := cachedUsername(ctx, kube, o.Namespace, o.Spec.User, o.Spec.UserReference)
	if user == "" || err != nil {
		return "", "", err
	}
	return a.indexKey(o) + "\x00" + user, topicPermissionsWhat(user, o.Spec.Permissions.Exchange, o.Spec.Vhost), nil
}

// Drift lists the user's topic permissions in the vhost (GET
// /api/topic-permissions/{vhost}/{user}) and compares the exchange's entry.
func (a topicPermissionActuator) Drift(_ context.Context, _ *rmqv1.TopicPermission, desired any) ([]string, error) {
	d := desired.(topicPermissionDesired)
	return compared(topicPermissionsWhat(d.User, d.Permissions.Exchange, d.Vhost), a.broker.GetTopicPermissionsIn,
		d.Vhost, d.User, d.Permissions, func(diff *differs, listed []rabbithole.TopicPermissionInfo, want rabbithole.TopicPermissions) {
			for _, p := range listed {
				if p.Exchange == want.Exchange {
					diff.check(p.Write != want.Write, "write")
					diff.check(p.Read != want.Read, "read")
					return
				}
			}
			diff.out = append(diff.out, diff.what+" were missing")
		})
}

// topicPermissionsWhat is how messages name the topic permissions of user
// on exchange in vhost.
func topicPermissionsWhat(user, exchange, vhost string) string {
	return fmt.Sprintf("topic permissions of user %q on exchange %q in vhost %q", user, exchange, vhost)
}
