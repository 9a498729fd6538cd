package keystoneapplicationcredential

import (
	"context"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/atrest"
	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/delivery/eso"
)

// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneapplicationcredentials,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneapplicationcredentials/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneapplicationcredentials/finalizers,verbs=update
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneusers;keystoneprojects;keystoneroleassignments,verbs=get;list;watch
// +kubebuilder:rbac:groups=c5c3.io,resources=controlplanes,verbs=get;list;watch
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=openstack.k-orc.cloud,resources=applicationcredentials,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=openstack.k-orc.cloud,resources=applicationcredentials/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=openstack.k-orc.cloud,resources=users;projects,verbs=get;list;watch
// +kubebuilder:rbac:groups=openstack.k-orc.cloud,resources=roles;services,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=external-secrets.io,resources=pushsecrets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=external-secrets.io,resources=secretstores;clustersecretstores,verbs=get;list;watch

// ControllerName names the controller and its event source.
const ControllerName = "orderhub-keystoneapplicationcredential"

// Options configure the reconciler; zero values take the defaults.
type Options struct {
	// Now is the clock; default time.Now.
	Now func() time.Time
	// ReadyResync is how often a converged order probes its delivered credential;
	// default applicationcredential.DefaultReadyResync.
	ReadyResync time.Duration
	Prober      Prober
	// Revoker deletes released superseded credentials; default KeystoneRevoke.
	Revoker Revoker
	// Roles lists the user's roles on the project for spec.roles; default
	// KeystoneTokenRoles.
	Roles RoleLister
	// LoginPeriod spaces the token requests with a converged order's
	// unchanged credential (atrest.Decide); default atrest.DefaultLoginPeriod.
	LoginPeriod time.Duration
	// Checker is the cheap check at rest; default an atrest.Keystone of
	// this reconciler's own.
	Checker atrest.Checker
	// Budget bounds the rotations of tenant orders; share one across the
	// hub's kinds. Default: a budget of this reconciler's own.
	Budget *orders.RotationBudget
}

// SetupWithManager registers the reconciler on hub's multicluster manager.
// The scheme MUST hold client-go's, c5c3.io's and K-ORC's types, and ESO's
// CRDs MUST be installed.
func SetupWithManager(hub *clusters.Hub, opts Options) error {
	base, err := orders.NewBase(hub, ControllerName, childSets...)
	if err != nil {
		return err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ReadyResync <= 0 {
		opts.ReadyResync = applicationcredential.DefaultReadyResync
	}
	if opts.Prober == nil {
		opts.Prober = KeystoneProbe
	}
	if opts.Revoker == nil {
		opts.Revoker = KeystoneRevoke
	}
	if opts.Roles == nil {
		opts.Roles = KeystoneTokenRoles
	}
	if opts.Budget == nil {
		opts.Budget = orders.NewRotationBudget()
	}
	opts.LoginPeriod, opts.Checker = atrest.OrDefault(opts.LoginPeriod, opts.Checker)
	r := &Reconciler{Base: base, now: opts.Now,
		resync: opts.ReadyResync, prober: opts.Prober, revoker: opts.Revoker, roles: opts.Roles, budget: opts.Budget,
		checker: opts.Checker, loginPeriod: opts.LoginPeriod}
	name := orders.KindKeystoneApplicationCredential
	localOnly := orders.LocalOnly()
	everywhere := []mcbuilder.WatchesOption{mcbuilder.WithEngageWithLocalCluster(true), mcbuilder.WithEngageWithProviderClusters(true)}
	workloads := []mcbuilder.WatchesOption{mcbuilder.WithEngageWithLocalCluster(true), mcbuilder.WithEngageWithProviderClusters(true),
		mcbuilder.WithPredicates(consumers.Changed)}
	return mcbuilder.ControllerManagedBy(hub.Manager).
		Named("keystoneapplicationcredential").
		For(&c5c3v1alpha1.KeystoneApplicationCredential{}, mcbuilder.WithEngageWithLocalCluster(true)).
		Watches(&orcv1alpha1.ApplicationCredential{}, orders.EnqueueOrderOfChild(name), localOnly...).
		Watches(&corev1.Secret{}, orders.EnqueueOrderOfChild(name), localOnly...).
		Watches(eso.NewMetadata(eso.PushSecretGVK), orders.EnqueueOrderOfChild(name), localOnly...).
		Watches(&c5c3v1alpha1.ControlPlane{}, orders.EnqueueOrdersOfPlane[c5c3v1alpha1.KeystoneApplicationCredentialList](hub, name, kind{}.PlaneRef),
			localOnly...).
		Watches(&c5c3v1alpha1.KeystoneUser{}, referencing(), everywhere...).
		Watches(&c5c3v1alpha1.KeystoneProject{}, referencing(), everywhere...).
		Watches(&c5c3v1alpha1.KeystoneRoleAssignment{}, referencing(), everywhere...).
		Watches(&corev1.Secret{}, deliveredSecretOwner(), everywhere...).
		Watches(&appsv1.Deployment{}, consumers.Enqueue(consumerOrder), workloads...).
		Watches(&appsv1.StatefulSet{}, consumers.Enqueue(consumerOrder), workloads...).
		Watches(&appsv1.DaemonSet{}, consumers.Enqueue(consumerOrder), workloads...).
		Complete(r)
}

// referencing maps a referenced order to the credential orders referencing it
// on its cluster (orders.HeldBy).
func referencing() mchandler.TypedEventHandlerFunc[client.Object, mcreconcile.Request] {
	return func(name multicluster.ClusterName, cl cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
		return mchandler.TypedEnqueueRequestsFromMapFuncWithClusterPreservation(
			func(ctx context.Context, o client.Object) []mcreconcile.Request {
				var refs orders.CredentialRefs
				switch v := o.(type) {
				case *c5c3v1alpha1.KeystoneUser:
					refs.User = v.Name
				case *c5c3v1alpha1.KeystoneProject:
					refs.Project = v.Name
				case *c5c3v1alpha1.KeystoneRoleAssignment:
					refs.User, refs.Project = v.Spec.UserRef.Name, v.Spec.ProjectRef.Name
				default:
					return nil
				}
				held, err := orders.HeldBy(ctx, cl.GetClient(), o.GetNamespace(), refs)
				if err != nil {
					return nil
				}
				reqs := make([]mcreconcile.Request, 0, len(held))
				for _, n := range held {
					reqs = append(reqs, orders.Request(orders.Order{Kind: orders.KindKeystoneApplicationCredential,
						Cluster: string(name), Namespace: o.GetNamespace(), Name: n}))
				}
				return reqs
			})
	}
}

// deliveredSecretOwner maps a delivered Secret to its order on its cluster.
func deliveredSecretOwner() mchandler.TypedEventHandlerFunc[client.Object, mcreconcile.Request] {
	return func(name multicluster.ClusterName, _ cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
		return mchandler.TypedEnqueueRequestsFromMapFuncWithClusterPreservation(
			func(_ context.Context, o client.Object) []mcreconcile.Request {
				order, ok := OrderOfDeliveredSecret(o.GetNamespace(), o.GetName(), o.GetLabels())
				if !ok {
					return nil
				}
				return []mcreconcile.Request{orders.Request(orders.Order{Kind: orders.KindKeystoneApplicationCredential,
					Cluster: string(name), Namespace: o.GetNamespace(), Name: order})}
			})
	}
}

// OrderOfDeliveredSecret names the order a Secret is <name>-credentials of:
// kind labels naming an order in its namespace, no owner-kind label.
func OrderOfDeliveredSecret(namespace, name string, labels map[string]string) (string, bool) {
	kind := orders.KindKeystoneApplicationCredential
	order, ns := labels[orders.KindLabelKey(kind, "name")], labels[orders.KindLabelKey(kind, "namespace")]
	if order == "" || ns != namespace || labels[orders.LabelOwnerKind] != "" || name != orders.SecretName(order) {
		return "", false
	}
	return order, true
}
