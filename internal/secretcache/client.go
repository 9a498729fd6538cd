package secretcache

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

// MaxRemembered bounds how many Secrets read by name a Client remembers; past
// it, an arbitrary entry is forgotten (a later read fetches it again).
const MaxRemembered = 4096

// Client is a cluster's client whose Secret reads never return a Secret
// stripped by Strip: Get and List fetch such a Secret from the API server (or
// return the copy fetched at the same resourceVersion). Writes and other types
// go to the wrapped client unchanged.
type Client struct {
	client.Client
	direct client.Reader

	mu     sync.Mutex
	byName map[types.NamespacedName]*corev1.Secret
}

// NewClient is a client.NewClientFunc (ctrl.Options.NewClient,
// cluster.Options.NewClient) building the default cached client and wrapping
// it in Client, with an uncached client of the same options for by-name reads.
func NewClient(config *rest.Config, options client.Options) (client.Client, error) {
	cached, err := client.New(config, options)
	if err != nil {
		return nil, err
	}
	options.Cache = nil
	direct, err := client.New(config, options)
	if err != nil {
		return nil, err
	}
	return Wrap(cached, direct), nil
}

// Wrap returns a Client reading through cached and, for stripped Secrets,
// through direct.
func Wrap(cached client.Client, direct client.Reader) *Client {
	return &Client{Client: cached, direct: direct, byName: map[types.NamespacedName]*corev1.Secret{}}
}

// Get reads obj; a stripped Secret is read whole by name. Errors: the
// wrapped client's, or the API server's for the by-name read.
func (c *Client) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := c.Client.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	s, ok := obj.(*corev1.Secret)
	if !ok || !Stripped(s) {
		return nil
	}
	full, err := c.whole(ctx, key, s.ResourceVersion)
	if err != nil {
		return err
	}
	full.DeepCopyInto(s)
	return nil
}

// List lists into list; each stripped Secret of a SecretList is replaced by
// its whole copy, or dropped when the API server no longer has it.
func (c *Client) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := c.Client.List(ctx, list, opts...); err != nil {
		return err
	}
	sl, ok := list.(*corev1.SecretList)
	if !ok {
		return nil
	}
	out := sl.Items[:0]
	for i := range sl.Items {
		s := sl.Items[i]
		if Stripped(&s) {
			full, err := c.whole(ctx, client.ObjectKeyFromObject(&s), s.ResourceVersion)
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			s = *full.DeepCopy()
		}
		out = append(out, s)
	}
	sl.Items = out
	return nil
}

// whole returns the remembered copy of key at resourceVersion rv, else reads
// and remembers it. The result MUST NOT be changed by the caller.
func (c *Client) whole(ctx context.Context, key types.NamespacedName, rv string) (*corev1.Secret, error) {
	c.mu.Lock()
	hit := c.byName[key]
	c.mu.Unlock()
	if hit != nil && hit.ResourceVersion == rv {
		return hit, nil
	}
	var s corev1.Secret
	if err := c.direct.Get(ctx, key, &s); err != nil {
		if apierrors.IsNotFound(err) {
			c.forget(key)
		}
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byName) >= MaxRemembered {
		for k := range c.byName {
			delete(c.byName, k)
			break
		}
	}
	c.byName[key] = &s
	return &s, nil
}

func (c *Client) forget(key types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byName, key)
}

// ForCluster sets a cluster's cache transform (Transform with HasLabelPrefix,
// before any transform already set) and its client (NewClient); it is a
// delivery/clusters.Options.Cluster for target clusters.
func ForCluster(o *cluster.Options) {
	o.Cache.DefaultTransform = Transform(HasLabelPrefix, o.Cache.DefaultTransform)
	o.NewClient = NewClient
}
