package topology

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// Which broker object each kind declares, for the rule on several
// declarations of one object (duplicates.go; docs/topology.md, "Several
// declarations of one broker object"). Keys hold NUL separators; they are
// compared whole, and indexed by their SHA-256.

// declarer is implemented by every kind's actuator.
type declarer[T object] interface {
	// indexKey is what declaresIndex holds of obj, from obj alone: the
	// object's key, or for a Permission its vhost (the username of a
	// userReference is the User's). "" when not known (a User without
	// status.username).
	indexKey(obj T) string
	// declares returns the key of the broker object obj declares and how a
	// message names it; key "" when not known yet. It reads the cache only.
	declares(ctx context.Context, kube client.Reader, obj T) (key, what string, err error)
}

// declaresIndex is a field index of every kind's cache by declaresValue of
// indexKey, so the other declarations of one object are found without
// listing every resource of the kind.
const declaresIndex = "rabbitmq.osh.openstack.org/declares"

// declaresValue is the index value of an index key: its SHA-256 in hex (a
// collision only adds a resource whose key is then compared and skipped).
func declaresValue(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

func inVhost(kind, vhost, name string) string {
	return kind + "\x00" + vhostOrRoot(vhost) + "\x00" + name
}

// namedInVhost is how messages name the broker object name in vhost:
// `<noun> "name" in vhost "vhost"`.
func namedInVhost(noun, vhost, name string) string {
	return fmt.Sprintf("%s %q in vhost %q", noun, name, vhostOrRoot(vhost))
}

// permissionsWhat is how messages name the permissions of user in vhost.
func permissionsWhat(user, vhost string) string {
	return fmt.Sprintf("permissions of user %q in vhost %q", user, vhost)
}

func (vhostActuator) indexKey(o *rmqv1.Vhost) string { return "vhost\x00" + o.Spec.Name }
func (a vhostActuator) declares(_ context.Context, _ client.Reader, o *rmqv1.Vhost) (string, string, error) {
	return a.indexKey(o), fmt.Sprintf("vhost %q", o.Spec.Name), nil
}

// A User's username is in its credentials Secret; status.username records
// it once resolved (Resolve sets it before the check).
func (userActuator) indexKey(o *rmqv1.User) string {
	if o.Status.Username == "" {
		return ""
	}
	return "user\x00" + o.Status.Username
}
func (a userActuator) declares(_ context.Context, _ client.Reader, o *rmqv1.User) (string, string, error) {
	return a.indexKey(o), fmt.Sprintf("user %q", o.Status.Username), nil
}

func (permissionActuator) indexKey(o *rmqv1.Permission) string {
	return "permissions\x00" + o.Spec.Vhost
}

// declares of a Permission with userReference reads the User from the
// cache: "" while it does not exist or has no status.username.
func (permissionActuator) declares(ctx context.Context, kube client.Reader, o *rmqv1.Permission) (string, string, error) {
	user, err := cachedUsername(ctx, kube, o.Namespace, o.Spec.User, o.Spec.UserReference)
	if user == "" || err != nil {
		return "", "", err
	}
	return "permissions\x00" + o.Spec.Vhost + "\x00" + user, permissionsWhat(user, o.Spec.Vhost), nil
}

// A binding is its whole key: source, destination and its type, routing
// key and arguments (compared as re-encoded JSON, so key order and spacing
// do not matter; arguments that are not JSON are compared as written).
func (bindingActuator) indexKey(o *rmqv1.Binding) string {
	s := o.Spec
	args := ""
	if m, err := arguments(s.Arguments); err == nil {
		b, _ := json.Marshal(m) // a map decoded from JSON always encodes
		args = string(b)
	} else {
		args = string(s.Arguments.Raw)
	}
	return inVhost("binding", s.Vhost, s.Source) + "\x00" + destinationType(s) + "\x00" + s.Destination + "\x00" + s.RoutingKey + "\x00" + args
}
func (a bindingActuator) declares(_ context.Context, _ client.Reader, o *rmqv1.Binding) (string, string, error) {
	s := o.Spec
	return a.indexKey(o), fmt.Sprintf("binding from exchange %q to %s %q with routing key %q in vhost %q",
		s.Source, destinationType(s), s.Destination, s.RoutingKey, vhostOrRoot(s.Vhost)), nil
}
