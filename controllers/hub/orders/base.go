package orders

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"

	"fmt"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/delivery/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Base is what every order reconciler holds of the hub.
type Base struct {
	Hub *clusters.Hub
	// Local is the management cluster's client.
	Local client.Client
	// Children is the management cluster's cache indexed by IndexOwner.
	Children client.Reader
	Recorder recorder.EventRecorder
	// Claims reads name claims uncached (ClaimClient).
	Claims client.Client
}

// NewBase adds the reference and owner indexes on hub and returns the Base of
// controller name, before the manager starts. Errors: an index refused.
func NewBase(hub *clusters.Hub, name string, sets ...ChildSet) (Base, error) {
	if err := IndexReferences(context.Background(), hub); err != nil {
		return Base{}, err
	}
	local := hub.Manager.GetLocalManager()
	if err := IndexChildren(context.Background(), hub, local.GetScheme(), Lists(sets...)...); err != nil {
		return Base{}, err
	}
	return Base{Hub: hub, Local: local.GetClient(), Children: local.GetCache(), Recorder: local.GetEventRecorder(name),
		Claims: ClaimClient{Client: local.GetClient(), Reader: local.GetAPIReader()}}, nil
}

// NewLoop is the order loop of k over b for kindName with its finalizer.
func NewLoop[T client.Object, S any](b Base, k Kind[T, S], kindName, finalizer string,
	fields func(T) (*S, *[]metav1.Condition, *int64), now func() metav1.Time) Loop[T, S] {
	return Loop[T, S]{Kind: k, Finalizer: finalizer, Clusters: b.Hub, Planes: b.Local, Children: b.Children, Local: b.Local, Now: now,
		Status: lifecycle.StatusWriter[T, S]{Kind: kindName, Recorder: b.Recorder, Fields: fields}}
}

// LocalOnly engages a watch with the management cluster only.
func LocalOnly() []mcbuilder.WatchesOption {
	return []mcbuilder.WatchesOption{mcbuilder.WithEngageWithLocalCluster(true), mcbuilder.WithEngageWithProviderClusters(false)}
}

// LocalCluster is the Clusters of a kind that lives on the management
// cluster only. Errors: a target cluster's name wraps
// multicluster.ErrClusterNotFound.
type LocalCluster struct{ C client.Client }

// Client is l.C for the management cluster.
func (l LocalCluster) Client(_ context.Context, name multicluster.ClusterName) (client.Client, error) {
	if name != multicluster.ClusterName(ManagementCluster) {
		return nil, fmt.Errorf("%w: %s (this kind lives on the management cluster only)", multicluster.ErrClusterNotFound, name)
	}
	return l.C, nil
}
