package clusters

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

const (
	// DefaultCacheSyncTimeout bounds the wait for a target cluster's cache to
	// sync when it is registered; past it the registration fails and is
	// retried with the controller's backoff (docs/hub.md, "Target clusters").
	DefaultCacheSyncTimeout = time.Minute
	// registrationWorkers is how many registration Secrets are handled at
	// once, so a cluster that is slow to sync delays no other.
	registrationWorkers = 4
	// controllerName names the registration controller and its events.
	controllerName = "target-clusters"
)

var _ multicluster.Provider = &Provider{}

// Provider engages one target cluster per registration Secret. It is
// multicluster-runtime's kubeconfig provider
// (sigs.k8s.io/multicluster-runtime/providers/kubeconfig, v0.24.1) with three
// changes that provider has no hook for: the kubeconfig is sanitized before
// any client is built from it (SanitizeKubeconfig; a refusal is an event on
// the Secret and a log line naming the field), the cache sync of a new
// cluster times out (Options.CacheSyncTimeout), and several registrations are
// handled at once, so one unreachable cluster never blocks another.
type Provider struct {
	opts     Options
	log      logr.Logger
	recorder recorder.EventRecorder
	mgr      mcmanager.Manager

	lock     sync.RWMutex // protects clusters and indexers
	clusters map[multicluster.ClusterName]activeCluster
	indexers []index
}

type activeCluster struct {
	Cluster cluster.Cluster
	Cancel  context.CancelFunc
	Hash    string // sha256 of the kubeconfig bytes
}

type index struct {
	object       client.Object
	field        string
	extractValue client.IndexerFunc
}

func newProvider(opts Options) *Provider {
	return &Provider{opts: opts, log: log.Log.WithName("target-clusters"),
		clusters: map[multicluster.ClusterName]activeCluster{}}
}

// setupWithManager registers the controller watching the registration
// Secrets on mgr's management cluster. Errors: the controller's setup.
func (p *Provider) setupWithManager(mgr mcmanager.Manager) error {
	p.mgr = mgr
	local := mgr.GetLocalManager()
	p.recorder = local.GetEventRecorder(controllerName)
	err := ctrl.NewControllerManagedBy(local).
		For(&corev1.Secret{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(obj client.Object) bool {
			return obj.GetNamespace() == p.opts.Namespace && obj.GetLabels()[p.opts.SecretLabel] == "true"
		}))).
		Named(controllerName).
		WithOptions(controller.Options{MaxConcurrentReconciles: registrationWorkers}).
		Complete(p)
	if err != nil {
		return fmt.Errorf("target clusters: %w", err)
	}
	return nil
}

// Get returns the engaged cluster of the name. Errors:
// multicluster.ErrClusterNotFound.
func (p *Provider) Get(_ context.Context, name multicluster.ClusterName) (cluster.Cluster, error) {
	p.lock.RLock()
	defer p.lock.RUnlock()
	ac, ok := p.clusters[name]
	if !ok {
		return nil, multicluster.ErrClusterNotFound
	}
	return ac.Cluster, nil
}

// IndexField adds the index on every engaged cluster and on every cluster
// engaged later. Errors: a cluster's cache refusing the index.
func (p *Provider) IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	p.lock.Lock()
	defer p.lock.Unlock()
	p.indexers = append(p.indexers, index{object: obj, field: field, extractValue: extract})
	for name, ac := range p.clusters {
		if err := ac.Cluster.GetFieldIndexer().IndexField(ctx, obj, field, extract); err != nil {
			return fmt.Errorf("index %q on cluster %q: %w", field, name, err)
		}
	}
	return nil
}

// ListClusters returns the names of the engaged clusters, in no order.
func (p *Provider) ListClusters() []multicluster.ClusterName {
	p.lock.RLock()
	defer p.lock.RUnlock()
	out := make([]multicluster.ClusterName, 0, len(p.clusters))
	for name := range p.clusters {
		out = append(out, name)
	}
	return out
}

func (p *Provider) active(name multicluster.ClusterName) (activeCluster, bool) {
	p.lock.RLock()
	defer p.lock.RUnlock()
	ac, ok := p.clusters[name]
	return ac, ok
}

// remove disengages the named cluster, if engaged, and stops its cache.
func (p *Provider) remove(name multicluster.ClusterName) {
	p.lock.Lock()
	ac, ok := p.clusters[name]
	delete(p.clusters, name)
	p.lock.Unlock()
	if ok {
		ac.Cancel()
		p.log.Info("disengaged target cluster", "cluster", name)
	}
}
