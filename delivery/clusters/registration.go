package clusters

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

const (
	// EventKubeconfigRefused is the reason of the Warning event recorded on a
	// registration Secret whose kubeconfig SanitizeKubeconfig refuses; the
	// note names the field (docs/hub.md, "Target clusters").
	EventKubeconfigRefused = "KubeconfigRefused"
	// EventCacheSyncTimeout is the reason of the Warning event recorded on a
	// registration Secret whose cluster's cache did not sync within
	// Options.CacheSyncTimeout; the registration is retried with backoff.
	EventCacheSyncTimeout = "CacheSyncTimeout"
)

// Reconcile engages, re-engages or disengages the cluster of one
// registration Secret. A refused kubeconfig disengages the cluster, records
// EventKubeconfigRefused and is not retried (an edit of the Secret is).
// Errors: reading the Secret, building the cluster, or its cache sync timing
// out (retried with the controller's backoff).
func (p *Provider) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	name := multicluster.ClusterName(req.Name)
	var secret corev1.Secret
	if err := p.mgr.GetLocalManager().GetClient().Get(ctx, req.NamespacedName, &secret); err != nil {
		if apierrors.IsNotFound(err) {
			p.remove(name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("registration Secret %s: %w", req.NamespacedName, err)
	}
	lg := p.log.WithValues("cluster", name, "secret", req.NamespacedName.String())
	if secret.DeletionTimestamp != nil || secret.Labels[p.opts.SecretLabel] != "true" {
		p.remove(name)
		return ctrl.Result{}, nil
	}
	data := secret.Data[p.opts.SecretKey]
	if len(data) == 0 {
		lg.Error(nil, "registration Secret holds no kubeconfig, skipping", "key", p.opts.SecretKey)
		return ctrl.Result{}, nil
	}
	if err := SanitizeKubeconfig(data); err != nil {
		p.remove(name)
		var rf *RefusedField
		field := ""
		if errors.As(err, &rf) {
			field = rf.Field
		}
		lg.Error(err, "registration refused, nothing sent to the cluster", "field", field)
		p.recorder.Eventf(&secret, nil, corev1.EventTypeWarning, EventKubeconfigRefused, "Register", "%v", err)
		return ctrl.Result{}, nil
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if ac, ok := p.active(name); ok {
		if ac.Hash == hash {
			return ctrl.Result{}, nil
		}
		p.remove(name)
	}
	if err := p.engage(ctx, name, data, hash, lg); err != nil {
		if errors.Is(err, errCacheSyncTimeout) {
			p.recorder.Eventf(&secret, nil, corev1.EventTypeWarning, EventCacheSyncTimeout, "Register", "%v", err)
		}
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

var errCacheSyncTimeout = errors.New("the cluster's cache did not sync in time")

// engage builds the cluster from a sanitized kubeconfig, starts it, waits at
// most Options.CacheSyncTimeout for its cache, and engages it with the
// manager. The cluster lives until remove or the manager stops (ctx is the
// controller's). Errors: the kubeconfig, the cluster, an index, a cache that
// did not sync (wrapping errCacheSyncTimeout), or the engagement.
func (p *Provider) engage(ctx context.Context, name multicluster.ClusterName, data []byte, hash string, lg logr.Logger) error {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		return fmt.Errorf("cluster %q: kubeconfig: %w", name, err)
	}
	cl, err := cluster.New(cfg, func(o *cluster.Options) {
		o.Scheme = p.opts.Scheme
		if p.opts.Cluster != nil {
			p.opts.Cluster(o)
		}
	})
	if err != nil {
		return fmt.Errorf("cluster %q: %w", name, err)
	}
	if err := p.applyIndexers(ctx, cl); err != nil {
		return err
	}
	clusterCtx, cancel := context.WithCancel(ctx)
	go func() {
		if err := cl.Start(clusterCtx); err != nil {
			lg.Error(err, "target cluster stopped")
		}
	}()
	syncCtx, stopSync := context.WithTimeout(clusterCtx, p.opts.CacheSyncTimeout)
	defer stopSync()
	if !cl.GetCache().WaitForCacheSync(syncCtx) {
		cancel()
		return fmt.Errorf("cluster %q: %w (%s); check that the server answers from the hub", name, errCacheSyncTimeout, p.opts.CacheSyncTimeout)
	}
	p.lock.Lock()
	p.clusters[name] = activeCluster{Cluster: cl, Cancel: cancel, Hash: hash}
	p.lock.Unlock()
	if err := p.mgr.Engage(clusterCtx, name, cl); err != nil {
		p.remove(name)
		return fmt.Errorf("cluster %q: engage: %w", name, err)
	}
	lg.Info("engaged target cluster")
	return nil
}

func (p *Provider) applyIndexers(ctx context.Context, cl cluster.Cluster) error {
	p.lock.RLock()
	defer p.lock.RUnlock()
	for _, idx := range p.indexers {
		if err := cl.GetFieldIndexer().IndexField(ctx, idx.object, idx.field, idx.extractValue); err != nil {
			return fmt.Errorf("index %q: %w", idx.field, err)
		}
	}
	return nil
}
