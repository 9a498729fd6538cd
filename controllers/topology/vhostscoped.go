package topology

import (
	"context"
	"net/http"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// vhostScoped is the actuator of a kind whose broker object is one name in
// a vhost, declared by PUT, read by GET and deleted by DELETE of one
// management API path (the table in docs/topology.md): Exchange, Queue,
// Policy, OperatorPolicy, Shovel and Federation. S is the PUT body, H what
// the GET returns. A missing object on DELETE (404) counts as success, so a
// vhost deleted first is fine.
type vhostScoped[T object, S, H any] struct {
	// key prefixes the index key (inVhost); noun names the object in
	// messages (namedInVhost).
	key, noun string
	// named is the object's spec.vhost ("" is "/") and name.
	named func(T) (vhost, name string)
	// resolve is the PUT body; see actuator.Resolve for its rules.
	resolve func(context.Context, T) (S, error)
	// put, get and del are the rabbit-hole calls of the path.
	put  func(vhost, name string, body S) (*http.Response, error)
	get  func(vhost, name string) (H, error)
	del  func(vhost, name string) (*http.Response, error)
	diff func(diff *differs, have H, want S)
}

// inVhostDesired is the desired state of a vhostScoped kind.
type inVhostDesired[S any] struct {
	Vhost, Name string
	Settings    S
}

func (k vhostScoped[T, S, H]) Resolve(ctx context.Context, o T) (any, error) {
	body, err := k.resolve(ctx, o)
	if err != nil {
		return nil, err
	}
	vhost, name := k.named(o)
	return inVhostDesired[S]{Vhost: vhostOrRoot(vhost), Name: name, Settings: body}, nil
}

func (k vhostScoped[T, S, H]) Declare(_ context.Context, _ T, desired any) error {
	d := desired.(inVhostDesired[S])
	return rabbitmq.Done(k.put(d.Vhost, d.Name, d.Settings))
}

func (k vhostScoped[T, S, H]) Delete(_ context.Context, o T) error {
	vhost, name := k.named(o)
	return rabbitmq.Done(k.del(vhostOrRoot(vhost), name))
}

func (k vhostScoped[T, S, H]) indexKey(o T) string {
	vhost, name := k.named(o)
	return inVhost(k.key, vhost, name)
}

func (k vhostScoped[T, S, H]) declares(_ context.Context, _ client.Reader, o T) (string, string, error) {
	vhost, name := k.named(o)
	return inVhost(k.key, vhost, name), namedInVhost(k.noun, vhost, name), nil
}

// Drift GETs the object and compares it with the PUT body (compared).
func (k vhostScoped[T, S, H]) Drift(_ context.Context, _ T, desired any) ([]string, error) {
	d := desired.(inVhostDesired[S])
	return compared(namedInVhost(k.noun, d.Vhost, d.Name), k.get, d.Vhost, d.Name, d.Settings, k.diff)
}
