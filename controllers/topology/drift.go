package topology

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// drifter is implemented by actuators that can tell with GET requests
// whether the broker still holds the desired state. The forced resync then
// sends its PUT or POST only on drift, so a steady state without drift costs
// reads only.
type drifter[T object] interface {
	// Drift reads the broker object and returns what differs from desired,
	// one phrase per difference naming the object ("queue \"q\" in vhost
	// \"/\" was missing", "tags of user \"u\" differ"); none when in sync.
	// An error means it cannot tell (errCannotTell when nothing can be
	// verified, for example an imported password hash); the caller then
	// declares without reporting a repair.
	Drift(ctx context.Context, obj T, desired any) ([]string, error)
}

// errCannotTell: the broker state cannot be compared with the desired one.
var errCannotTell = errors.New("cannot compare with the broker")

// missing turns a 404 of the GET of what into the drift "<what> was
// missing"; any other error passes through.
func missing(err error, what string) ([]string, error) {
	if rabbitmq.IsNotFound(err) {
		return []string{what + " was missing"}, nil
	}
	return nil, err
}

// differs collects "<field> of <what> differ(s)" for each field whose
// condition holds.
type differs struct {
	what string
	out  []string
}

func (d *differs) check(changed bool, field string) {
	if changed {
		d.out = append(d.out, fmt.Sprintf("%s of %s differed", field, d.what))
	}
}

// compared is the drift of the broker object get(vhost, name) reads: a 404
// is "<what> was missing", another error passes through, else compare
// checks each field of have against want.
func compared[H, W any](what string, get func(vhost, name string) (H, error), vhost, name string, want W,
	compare func(diff *differs, have H, want W)) ([]string, error) {
	have, err := get(vhost, name)
	if err != nil {
		return missing(err, what)
	}
	diff := differs{what: what}
	compare(&diff, have, want)
	return diff.out, nil
}

func (a vhostActuator) Drift(_ context.Context, _ *rmqv1.Vhost, desired any) ([]string, error) {
	d := desired.(vhostDesired)
	what := fmt.Sprintf("vhost %q", d.Name)
	v, err := a.broker.GetVhost(d.Name)
	if err != nil {
		return missing(err, what)
	}
	diff := differs{what: what}
	diff.check(v.Tracing != d.Settings.Tracing, "tracing")
	diff.check(!sameSet(v.Tags, d.Settings.Tags), "tags")
	diff.check(d.Settings.DefaultQueueType != "" && v.DefaultQueueType != d.Settings.DefaultQueueType, "default queue type")
	have, err := a.limits(d.Name)
	if err != nil {
		return nil, err
	}
	diff.check(!limitsMatch(have, d.Limits), "limits")
	return diff.out, nil
}

func (a userActuator) Drift(_ context.Context, _ *rmqv1.User, desired any) ([]string, error) {
	d := desired.(userDesired)
	if d.Passwordless || d.Settings.PasswordHash != "" || (d.previous != "" && d.previous != d.Username) {
		return nil, errCannotTell // nothing to verify against: declare
	}
	what := fmt.Sprintf("user %q", d.Username)
	u, err := a.broker.GetUser(d.Username)
	if err != nil {
		return missing(err, what)
	}
	diff := differs{what: what}
	diff.check(!sameSet(u.Tags, d.Settings.Tags), "tags")
	diff.check(!passwordMatches(u.PasswordHash, u.HashingAlgorithm, d.Settings.Password), "password")
	have, err := a.limits(d.Username)
	if err != nil {
		return nil, err
	}
	diff.check(!limitsMatch(have, d.Limits), "limits")
	return diff.out, nil
}

func (a permissionActuator) Drift(_ context.Context, _ *rmqv1.Permission, desired any) ([]string, error) {
	d := desired.(permissionDesired)
	return compared(permissionsWhat(d.User, d.Vhost), a.broker.GetPermissionsIn, d.Vhost, d.User, d.Permissions,
		func(diff *differs, p rabbithole.PermissionInfo, want rabbithole.Permissions) {
			diff.check(p.Configure != want.Configure, "configure")
			diff.check(p.Write != want.Write, "write")
			diff.check(p.Read != want.Read, "read")
		})
}

func (a bindingActuator) Drift(_ context.Context, _ *rmqv1.Binding, desired any) ([]string, error) {
	b := desired.(rabbithole.BindingInfo)
	what := fmt.Sprintf("binding from exchange %q to %s %q with routing key %q in vhost %q",
		b.Source, b.DestinationType, b.Destination, b.RoutingKey, b.Vhost)
	listed, err := a.list(b)
	if err != nil {
		return missing(err, what)
	}
	if len(matchingBindings(listed, b.RoutingKey, b.Arguments)) == 0 {
		return []string{what + " was missing"}, nil
	}
	return nil, nil
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

func withoutKey(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// observeDrift asks act what differs in the broker from desired. inSync
// is true only when the actuator could compare and found nothing; drift
// lists what it found (empty when it could not tell).
func observeDrift[T object](ctx context.Context, act actuator[T], obj T, desired any) (inSync bool, drift string) {
	d, ok := any(act).(drifter[T])
	if !ok {
		return false, ""
	}
	found, err := d.Drift(ctx, obj, desired)
	if err != nil {
		return false, ""
	}
	return len(found) == 0, strings.Join(found, "; ")
}
