package topology

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"slices"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// drifter is implemented by actuators that can tell with GET requests
// whether the broker still holds the desired state. The forced resync then
// sends its PUT or POST only on drift, so a steady state without drift costs
// reads only. Any error (including 404) counts as drift.
type drifter[T object] interface {
	InSync(ctx context.Context, obj T, desired any) (bool, error)
}

var (
	_ drifter[*rmqv1.Vhost]      = vhostActuator{}
	_ drifter[*rmqv1.User]       = userActuator{}
	_ drifter[*rmqv1.Permission] = permissionActuator{}
	_ drifter[*rmqv1.Queue]      = queueActuator{}
	_ drifter[*rmqv1.Exchange]   = exchangeActuator{}
	_ drifter[*rmqv1.Binding]    = bindingActuator{}
	_ drifter[*rmqv1.Policy]     = policyActuator{}
)

func (a vhostActuator) InSync(_ context.Context, _ *rmqv1.Vhost, desired any) (bool, error) {
	d := desired.(vhostDesired)
	v, err := a.broker.GetVhost(d.Name)
	if err != nil {
		return false, err
	}
	if v.Tracing != d.Settings.Tracing || !sameSet(v.Tags, d.Settings.Tags) ||
		(d.Settings.DefaultQueueType != "" && v.DefaultQueueType != d.Settings.DefaultQueueType) {
		return false, nil
	}
	current, err := a.broker.GetVhostLimits(d.Name)
	if err != nil {
		return false, err
	}
	return limitsMatch(flattenVhostLimits(current), d.Limits), nil
}

func (a userActuator) InSync(_ context.Context, _ *rmqv1.User, desired any) (bool, error) {
	d := desired.(userDesired)
	if d.Passwordless || d.Settings.PasswordHash != "" || (d.previous != "" && d.previous != d.Username) {
		return false, nil // nothing to verify against: declare
	}
	u, err := a.broker.GetUser(d.Username)
	if err != nil {
		return false, err
	}
	if !sameSet(u.Tags, d.Settings.Tags) || !passwordMatches(u.PasswordHash, u.HashingAlgorithm, d.Settings.Password) {
		return false, nil
	}
	current, err := a.broker.GetUserLimits(d.Username)
	if err != nil {
		return false, err
	}
	have := map[string]int{}
	for _, c := range current {
		for k, v := range c.Value {
			have[k] = v
		}
	}
	return limitsMatch(have, d.Limits), nil
}

func (a permissionActuator) InSync(_ context.Context, _ *rmqv1.Permission, desired any) (bool, error) {
	d := desired.(permissionDesired)
	p, err := a.broker.GetPermissionsIn(d.Vhost, d.User)
	if err != nil {
		return false, err
	}
	return p.Configure == d.Permissions.Configure && p.Write == d.Permissions.Write && p.Read == d.Permissions.Read, nil
}

func (a queueActuator) InSync(_ context.Context, _ *rmqv1.Queue, desired any) (bool, error) {
	d := desired.(queueDesired)
	q, err := a.broker.GetQueue(d.Vhost, d.Name)
	if err != nil {
		return false, err
	}
	want := map[string]any{}
	for k, v := range d.Settings.Arguments {
		want[k] = v
	}
	if d.Settings.Type != "" {
		want["x-queue-type"] = d.Settings.Type
	}
	have := q.Arguments
	if _, ok := want["x-queue-type"]; !ok {
		// A queue declared without a type may be listed with the default.
		have = withoutKey(have, "x-queue-type")
	}
	return q.Durable == d.Settings.Durable && bool(q.AutoDelete) == d.Settings.AutoDelete && sameArguments(have, want), nil
}

func (a exchangeActuator) InSync(_ context.Context, _ *rmqv1.Exchange, desired any) (bool, error) {
	d := desired.(exchangeDesired)
	e, err := a.broker.GetExchange(d.Vhost, d.Name)
	if err != nil {
		return false, err
	}
	return e.Type == d.Settings.Type && e.Durable == d.Settings.Durable && bool(e.AutoDelete) == d.Settings.AutoDelete &&
		sameArguments(e.Arguments, d.Settings.Arguments), nil
}

func (a bindingActuator) InSync(_ context.Context, _ *rmqv1.Binding, desired any) (bool, error) {
	b := desired.(rabbithole.BindingInfo)
	listed, err := a.list(b)
	if err != nil {
		return false, err
	}
	return len(matchingBindings(listed, b.RoutingKey, b.Arguments)) > 0, nil
}

func (a policyActuator) InSync(_ context.Context, _ *rmqv1.Policy, desired any) (bool, error) {
	d := desired.(rabbithole.Policy)
	p, err := a.broker.GetPolicy(d.Vhost, d.Name)
	if err != nil {
		return false, err
	}
	return p.Pattern == d.Pattern && p.ApplyTo == d.ApplyTo && p.Priority == d.Priority &&
		sameArguments(p.Definition, d.Definition), nil
}

// passwordMatches checks password against a management API password_hash:
// base64 of a 4-byte salt followed by the hash of salt+password (RabbitMQ
// "Computing a password hash"). SHA-256 is the broker default; MD5 and
// unknown algorithms report false, which makes the caller re-declare.
func passwordMatches(hashB64 string, algo rabbithole.HashingAlgorithm, password string) bool {
	raw, err := base64.StdEncoding.DecodeString(hashB64)
	if err != nil || len(raw) < 5 {
		return false
	}
	salt, sum := raw[:4], raw[4:]
	var got []byte
	switch algo {
	case "", rabbithole.HashingAlgorithmSHA256:
		h := sha256.Sum256(append(slices.Clone(salt), password...))
		got = h[:]
	case rabbithole.HashingAlgorithmSHA512:
		h := sha512.Sum512(append(slices.Clone(salt), password...))
		got = h[:]
	default:
		return false
	}
	return subtle.ConstantTimeCompare(got, sum) == 1
}

func sameSet(a, b []string) bool {
	norm := func(s []string) []string {
		out := make([]string, 0, len(s))
		for _, v := range s {
			if v != "" {
				out = append(out, v)
			}
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(norm(a), norm(b))
}

func limitsMatch(have, want map[string]int) bool {
	put, del := limitChanges(have, want)
	return len(put) == 0 && len(del) == 0
}

func flattenVhostLimits(in []rabbithole.VhostLimitsInfo) map[string]int {
	out := map[string]int{}
	for _, c := range in {
		for k, v := range c.Value {
			out[k] = v
		}
	}
	return out
}

func withoutKey(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// inSync asks act whether the broker still matches desired; false when the
// actuator cannot tell.
func inSync[T object](ctx context.Context, act actuator[T], obj T, desired any) bool {
	d, ok := any(act).(drifter[T])
	if !ok {
		return false
	}
	ok, err := d.InSync(ctx, obj, desired)
	return err == nil && ok
}
