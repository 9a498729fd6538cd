package clusters

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	kubeconfigprovider "sigs.k8s.io/multicluster-runtime/providers/kubeconfig"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

const (
	// DefaultSecretLabel is the label key a registration Secret carries with
	// the value "true": the kubeconfig provider's default
	// (kubeconfigprovider.DefaultKubeconfigSecretLabel,
	// sigs.k8s.io/multicluster-runtime/providers/kubeconfig).
	DefaultSecretLabel = kubeconfigprovider.DefaultKubeconfigSecretLabel
	// DefaultSecretKey is the data key of the kubeconfig in a registration
	// Secret: the kubeconfig provider's default
	// (kubeconfigprovider.DefaultKubeconfigSecretKey,
	// sigs.k8s.io/multicluster-runtime/providers/kubeconfig).
	DefaultSecretKey = kubeconfigprovider.DefaultKubeconfigSecretKey
	// LocalCluster is the name of the management (hub) cluster in a
	// multicluster request: the empty name (mcmanager.LocalCluster).
	LocalCluster = mcmanager.LocalCluster
	// MaxClusterNameLength is the longest cluster name an order on a target
	// cluster can carry: children record the cluster in a label value, which
	// holds at most 63 characters (validation.LabelValueMaxLength;
	// docs/hub.md, "Target clusters": the cluster name is the registration
	// Secret's name and at most 63 characters).
	MaxClusterNameLength = validation.LabelValueMaxLength
)

// ErrClusterNameTooLong is wrapped by ValidateClusterName's error when a
// cluster name is longer than MaxClusterNameLength. A reconciler reports it as
// the condition reason c5c3v1alpha1.ReasonClusterNameTooLong
// (docs/reference/keystoneapplicationcredential.md, "Conditions": "The order
// lives on a target cluster whose name is longer than the 63 characters a label
// value carries").
var ErrClusterNameTooLong = errors.New("cluster name is longer than the 63 characters a label value carries")

// ReasonClusterNameTooLong is the condition reason for ErrClusterNameTooLong
// (c5c3v1alpha1.ReasonClusterNameTooLong), re-exported so a reconciler can map
// ValidateClusterName's error without a second import.
const ReasonClusterNameTooLong = c5c3v1alpha1.ReasonClusterNameTooLong

// Options configure target-cluster registration. The zero values of
// SecretLabel and SecretKey select the provider's defaults.
type Options struct {
	// Namespace is the hub namespace holding the registration Secrets; only
	// Secrets in it are read. Required.
	Namespace string
	// SecretLabel is the label key a registration Secret carries with the
	// value "true"; default DefaultSecretLabel.
	SecretLabel string
	// SecretKey is the data key holding the kubeconfig; default
	// DefaultSecretKey.
	SecretKey string
	// Scheme is the scheme of every target cluster's client and cache; nil:
	// the hub manager's scheme (so c5c3.io orders read the same on every
	// cluster).
	Scheme *runtime.Scheme
	// CacheSyncTimeout bounds the wait for a new target cluster's cache;
	// zero: DefaultCacheSyncTimeout.
	CacheSyncTimeout time.Duration
	// Cluster, when set, adjusts each target cluster's options (its cache
	// transform and client) after the scheme is set.
	Cluster func(*cluster.Options)
}

// withDefaults returns o with the provider's defaults filled in, or an error
// when Namespace is empty (the provider would then select no Secret at all).
func (o Options) withDefaults() (Options, error) {
	if o.Namespace == "" {
		return o, errors.New("target clusters: the namespace of the kubeconfig Secrets is required")
	}
	if o.SecretLabel == "" {
		o.SecretLabel = DefaultSecretLabel
	}
	if o.SecretKey == "" {
		o.SecretKey = DefaultSecretKey
	}
	if o.CacheSyncTimeout <= 0 {
		o.CacheSyncTimeout = DefaultCacheSyncTimeout
	}
	return o, nil
}

// Hub is the hub's multicluster manager with its kubeconfig provider.
// Manager.GetLocalManager() is the plain controller-runtime manager of the
// management cluster: controllers that know nothing of target clusters stay
// there unchanged; multicluster controllers are built with
// mcbuilder.ControllerManagedBy(Manager) and must pass
// mcbuilder.WithEngageWithLocalCluster(true) to For/Owns/Watches to see the
// management cluster too (it defaults to false when a provider is set,
// sigs.k8s.io/multicluster-runtime/pkg/builder).
type Hub struct {
	// Manager is the multicluster manager; start it (not the local manager)
	// with Manager.Start.
	Manager mcmanager.Manager
	// Provider engages a target cluster per registration Secret; nil when
	// the hub was built without target clusters (Wrap with a nil *Options).
	Provider *Provider
	// Options are the effective options (defaults filled in); zero without
	// target clusters.
	Options Options

	mu sync.Mutex
	// indexed holds the field indexes IndexField added, by type and field.
	indexed map[string]bool
}

// IndexField adds the field index field on obj's type, valued by extract,
// on every cluster the hub serves orders on: the management cluster and
// each target cluster the provider engages, now or later (the provider's
// IndexField). mcmanager.Manager.GetFieldIndexer indexes only the
// provider's clusters once a provider is set
// (sigs.k8s.io/multicluster-runtime/pkg/manager). An index already added is
// not added again, so every reconciler may ask for the indexes it reads.
// Call it before the manager starts. Errors: a cache refusing the index.
func (h *Hub) IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	return h.index(ctx, obj, field, extract, true)
}

// IndexLocalField adds the field index field on obj's type, valued by
// extract, on the management cluster only: for the children the hub
// projects into a ControlPlane's namespace, whose kinds (K-ORC's,
// External Secrets') a target cluster need not have. Like IndexField it
// adds an index once and must be called before the manager starts.
// Errors: the cache refusing the index, or obj's kind not installed.
func (h *Hub) IndexLocalField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	return h.index(ctx, obj, field, extract, false)
}

func (h *Hub) index(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc, targets bool) error {
	key := indexKey(obj, field)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.indexed[key] {
		return nil
	}
	if err := h.Manager.GetLocalManager().GetFieldIndexer().IndexField(ctx, obj, field, extract); err != nil {
		return fmt.Errorf("index %s on the management cluster: %w", key, err)
	}
	if targets && h.Provider != nil {
		if err := h.Provider.IndexField(ctx, obj, field, extract); err != nil {
			return fmt.Errorf("index %s on the target clusters: %w", key, err)
		}
	}
	if h.indexed == nil {
		h.indexed = map[string]bool{}
	}
	h.indexed[key] = true
	return nil
}

// indexKey names an index by its object's type and field; an unstructured
// or metadata-only object also by its kind, since every such kind shares
// one Go type (and a kind's metadata informer is not its unstructured one).
func indexKey(obj client.Object, field string) string {
	switch obj.(type) {
	case runtime.Unstructured, *metav1.PartialObjectMetadata:
		return fmt.Sprintf("%T/%s/%s", obj, obj.GetObjectKind().GroupVersionKind(), field)
	}
	return fmt.Sprintf("%T/%s", obj, field)
}

// New builds a controller-runtime manager on cfg with mgrOpts and wraps it as
// Wrap does. Errors: manager construction, or Wrap's.
func New(ctx context.Context, cfg *rest.Config, mgrOpts manager.Options, o *Options) (*Hub, error) {
	mgr, err := manager.New(cfg, mgrOpts)
	if err != nil {
		return nil, err
	}
	return Wrap(ctx, mgr, o)
}

// Wrap turns mgr (the management cluster's manager, not started yet) into the
// hub's multicluster manager. With o nil, no provider is set: the manager
// serves the local cluster only and GetCluster of any other name fails. With
// o set, a Provider (multicluster-runtime's kubeconfig provider with a
// sanitized kubeconfig and a bounded cache sync) is set up on mgr: a
// controller on mgr watches the Secrets in o.Namespace labelled
// o.SecretLabel=true, and engages one cluster per Secret, named by the
// Secret's name, from the kubeconfig under o.SecretKey once
// SanitizeKubeconfig accepts it; deleting the Secret (or removing the label)
// disengages it. The provider's Secret
// watch runs on mgr's cache, so mgr must be allowed to list and watch Secrets
// in o.Namespace (and its cache must include that namespace). ctx is unused
// (kept for the callers); the engaged clusters live as long as
// the manager runs: the provider derives each cluster's context from its
// Reconcile context, so mgr must not set a controller ReconciliationTimeout
// (it would disengage every cluster after that time).
// Errors: o.Namespace empty, the multicluster wrapper, or the provider's
// controller setup.
func Wrap(_ context.Context, mgr manager.Manager, o *Options) (*Hub, error) {
	if o == nil {
		m, err := mcmanager.WithMultiCluster(mgr, nil)
		if err != nil {
			return nil, err
		}
		return &Hub{Manager: m}, nil
	}
	opts, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if opts.Scheme == nil {
		opts.Scheme = mgr.GetScheme()
	}
	provider := newProvider(opts)
	m, err := mcmanager.WithMultiCluster(mgr, provider)
	if err != nil {
		return nil, err
	}
	if err := provider.setupWithManager(m); err != nil {
		return nil, err
	}
	return &Hub{Manager: m, Provider: provider, Options: opts}, nil
}

// Client returns the client of the named cluster: LocalCluster ("") is the
// management cluster's (cached) client, any other name the engaged target
// cluster's. A reconciler passes req.ClusterName. Errors: for a name no
// provider engages, an error wrapping multicluster.ErrClusterNotFound (the
// cluster was never registered or was deregistered; the order cannot be read
// any more, see the package documentation for its leftovers). Returned from
// a reconciler built with mcbuilder, that error drops the request instead of
// requeuing it (the builder's default ClusterNotFoundWrapper).
func (h *Hub) Client(ctx context.Context, name multicluster.ClusterName) (client.Client, error) {
	cl, err := h.Cluster(ctx, name)
	if err != nil {
		return nil, err
	}
	return cl.GetClient(), nil
}

// Cluster returns the named cluster (client, cache, config), with Client's
// naming and errors.
func (h *Hub) Cluster(ctx context.Context, name multicluster.ClusterName) (cluster.Cluster, error) {
	if name != LocalCluster && h.Provider == nil {
		return nil, fmt.Errorf("cluster %q: %w (no target clusters configured)", name, multicluster.ErrClusterNotFound)
	}
	cl, err := h.Manager.GetCluster(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w", name, err)
	}
	return cl, nil
}

// TargetClusters returns the names of the engaged target clusters, sorted;
// nil without a provider. The management cluster is not listed.
func (h *Hub) TargetClusters() []multicluster.ClusterName {
	if h.Provider == nil {
		return nil
	}
	names := h.Provider.ListClusters()
	slices.Sort(names)
	return names
}

// ValidateClusterName checks that name can be written into a label value, the
// way every child records its order's cluster
// (docs/reference/keystoneapplicationcredential.md, "Projected child names").
// LocalCluster ("") is valid. Errors: longer than MaxClusterNameLength, an
// error wrapping ErrClusterNameTooLong (report ReasonClusterNameTooLong);
// otherwise not a label value, a plain error (cannot happen for a Secret name,
// which is a DNS subdomain).
func ValidateClusterName(name multicluster.ClusterName) error {
	if len(name) > MaxClusterNameLength {
		return fmt.Errorf("cluster %q (%d characters): %w; re-register it under a shorter name", name, len(name), ErrClusterNameTooLong)
	}
	if msgs := validation.IsValidLabelValue(string(name)); len(msgs) > 0 {
		return fmt.Errorf("cluster %q is not a label value: %v", name, msgs)
	}
	return nil
}
