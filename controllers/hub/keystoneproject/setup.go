package keystoneproject

import (
	"context"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/nameprobe"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/clusters"
)

// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneprojects,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneprojects/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneprojects/finalizers,verbs=update
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneapplicationcredentials;keystoneusers,verbs=get;list;watch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;delete
// +kubebuilder:rbac:groups=c5c3.io,resources=controlplanes,verbs=get;list;watch
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=openstack.k-orc.cloud,resources=projects;domains,verbs=get;list;watch;create;update;patch;delete

// childSets are the order's children in the plane's namespace: the managed
// Project (and the K-ORC probe of an order probed before nameprobe), and the
// Domain import.
var childSets = []orders.ChildSet{
	{List: func() client.ObjectList { return &orcv1alpha1.ProjectList{} }},
	{List: func() client.ObjectList { return &orcv1alpha1.DomainList{} }},
}

// Options configure the reconciler; the zero value is the default.
type Options struct {
	// HeldRequeue is how soon a held deletion looks again without an event
	// (zero: NotReadyRequeue), a safety net behind deletingProjectOf.
	HeldRequeue time.Duration
	// Prober answers the collision probe (nil: nameprobe.Keystone with a
	// session cache of its own).
	Prober nameprobe.Prober
}

// SetupWithManager registers the KeystoneProject reconciler on the hub's
// multicluster manager; the scheme must hold client-go's, c5c3.io's and
// K-ORC's types.
func SetupWithManager(hub *clusters.Hub, opts Options) error {
	if opts.HeldRequeue <= 0 {
		opts.HeldRequeue = NotReadyRequeue
	}
	base, err := orders.NewBase(hub, ControllerName, childSets...)
	if err != nil {
		return err
	}
	r := &Reconciler{Base: base, now: metav1.Now, heldRequeue: opts.HeldRequeue, prober: nameprobe.OrDefault(opts.Prober)}
	name := orders.KindKeystoneProject
	localOnly := orders.LocalOnly()
	return mcbuilder.ControllerManagedBy(hub.Manager).
		Named("keystoneproject").
		For(&c5c3v1alpha1.KeystoneProject{}, mcbuilder.WithEngageWithLocalCluster(true)).
		Watches(&orcv1alpha1.Project{}, orders.EnqueueOrderOfChild(name), localOnly...).
		Watches(&orcv1alpha1.Domain{}, orders.EnqueueOrderOfChild(name), localOnly...).
		Watches(&c5c3v1alpha1.ControlPlane{}, orders.EnqueueOrdersOfPlane[c5c3v1alpha1.KeystoneProjectList](hub, name, kind{}.PlaneRef), localOnly...).
		Watches(&c5c3v1alpha1.KeystoneApplicationCredential{}, deletingProjectOf(projectOfCredential),
			mcbuilder.WithEngageWithLocalCluster(true), mcbuilder.WithPredicates(orders.HoldChanged)).
		Watches(&c5c3v1alpha1.KeystoneUser{}, deletingProjectOf(projectOfUser),
			mcbuilder.WithEngageWithLocalCluster(true), mcbuilder.WithPredicates(orders.HoldChanged)).
		Complete(r)
}

// deletingProjectOf wakes the KeystoneProject ref names only while it is
// being deleted or not cached (docs/performance.md, "Hub: 500 application
// credentials"); a release is not lost, since the project's own deletion
// event comes after any reference event the cache saw before it.
func deletingProjectOf(ref func(context.Context, client.Object) []mcreconcile.Request) mchandler.TypedEventHandlerFunc[client.Object, mcreconcile.Request] {
	return func(name multicluster.ClusterName, cl cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
		return mchandler.TypedEnqueueRequestsFromMapFunc[client.Object, mcreconcile.Request](
			func(ctx context.Context, o client.Object) []mcreconcile.Request {
				reqs := ref(ctx, o)
				out := reqs[:0]
				for _, req := range reqs {
					var kp c5c3v1alpha1.KeystoneProject
					if err := cl.GetClient().Get(ctx, req.NamespacedName, &kp); err == nil && kp.DeletionTimestamp.IsZero() {
						continue
					}
					out = append(out, req)
				}
				return out
			})(name, cl)
	}
}

// projectOfCredential maps a KeystoneApplicationCredential to the
// KeystoneProject its spec.projectRef names.
func projectOfCredential(_ context.Context, o client.Object) []mcreconcile.Request {
	ac, ok := o.(*c5c3v1alpha1.KeystoneApplicationCredential)
	if !ok || ac.Spec.ProjectRef.Name == "" {
		return nil
	}
	return []mcreconcile.Request{{Request: reconcile.Request{NamespacedName: types.NamespacedName{
		Namespace: ac.Namespace, Name: ac.Spec.ProjectRef.Name}}}}
}

// projectOfUser maps a KeystoneUser to its spec.defaultProjectRef project.
func projectOfUser(_ context.Context, o client.Object) []mcreconcile.Request {
	u, ok := o.(*c5c3v1alpha1.KeystoneUser)
	if !ok || u.Spec.DefaultProjectRef == nil || u.Spec.DefaultProjectRef.Name == "" {
		return nil
	}
	return []mcreconcile.Request{{Request: reconcile.Request{NamespacedName: types.NamespacedName{
		Namespace: u.Namespace, Name: u.Spec.DefaultProjectRef.Name}}}}
}
