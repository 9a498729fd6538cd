package keystoneuser

import (
	"context"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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
	"github.com/c5c3/orderhub/controllers/hub/atrest"
	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/nameprobe"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/delivery/eso"
)

// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneusers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneusers/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneusers/finalizers,verbs=update
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneprojects;keystoneapplicationcredentials,verbs=get;list;watch
// +kubebuilder:rbac:groups=c5c3.io,resources=controlplanes,verbs=get;list;watch
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=openstack.k-orc.cloud,resources=users;domains,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=external-secrets.io,resources=pushsecrets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=external-secrets.io,resources=secretstores;clustersecretstores,verbs=get;list;watch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;delete

// childSets are the order's children in the plane's namespace, in the
// order the teardown deletes them: the PushSecret (ESO removes the OpenBao
// path), the K-ORC User (K-ORC deletes the Keystone user), the Secrets
// (password generations, source), the probe (a User too) and the Domain
// import. The delivered Secret goes with the order through its owner
// reference (garbage collector).
var childSets = []orders.ChildSet{
	{List: func() client.ObjectList { return eso.NewMetadataList(eso.PushSecretGVK) }},
	{List: func() client.ObjectList { return &orcv1alpha1.UserList{} }},
	{List: func() client.ObjectList { return &corev1.SecretList{} }},
	{List: func() client.ObjectList { return &orcv1alpha1.DomainList{} }},
}

// Options configure the reconciler; zero values take the defaults.
type Options struct {
	// Verifier checks an applied password with Keystone before delivery;
	// default controlplane.KeystoneVerifier.
	Verifier controlplane.Verifier
	// Now is the clock (rotation schedule, status times); default time.Now.
	Now func() time.Time
	// VerifyInterval bounds how long an unchanged delivery goes unchecked
	// (VerifyDue); default ReadyResync.
	VerifyInterval time.Duration
	// LoginPeriod spaces the hashing logins of a converged order's unchanged
	// password (atrest.Decide); default atrest.DefaultLoginPeriod.
	LoginPeriod time.Duration
	// Checker is the cheap check at rest; default an atrest.Keystone of
	// this reconciler's own.
	Checker atrest.Checker
	// Prober answers the collision probe (nil: nameprobe.Keystone with a
	// session cache of its own).
	Prober nameprobe.Prober
	// Budget bounds the rotations of tenant orders; share one across the
	// hub's kinds. Default: a budget of this reconciler's own.
	Budget *orders.RotationBudget
}

// SetupWithManager registers the KeystoneUser reconciler with the hub's
// multicluster manager; the scheme must hold client-go's, c5c3.io's and
// K-ORC's types and ESO's CRDs must be installed.
func SetupWithManager(hub *clusters.Hub, opts Options) error {
	if opts.Verifier == nil {
		opts.Verifier = controlplane.KeystoneVerifier{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.VerifyInterval <= 0 {
		opts.VerifyInterval = ReadyResync
	}
	if opts.Budget == nil {
		opts.Budget = orders.NewRotationBudget()
	}
	opts.LoginPeriod, opts.Checker = atrest.OrDefault(opts.LoginPeriod, opts.Checker)
	base, err := orders.NewBase(hub, ControllerName, childSets...)
	if err != nil {
		return err
	}
	r := &Reconciler{Base: base, verifier: opts.Verifier, now: opts.Now, verifyInterval: opts.VerifyInterval, budget: opts.Budget,
		checker: opts.Checker, loginPeriod: opts.LoginPeriod, prober: nameprobe.OrDefault(opts.Prober)}
	child := orders.EnqueueOrderOfChild(orders.KindKeystoneUser)
	localOnly := orders.LocalOnly()
	planes := orders.EnqueueOrdersOfPlane[c5c3v1alpha1.KeystoneUserList](hub, orders.KindKeystoneUser, kind{}.PlaneRef)
	return mcbuilder.ControllerManagedBy(hub.Manager).
		Named("keystoneuser").
		For(&c5c3v1alpha1.KeystoneUser{}, mcbuilder.WithEngageWithLocalCluster(true)).
		Owns(&corev1.Secret{}, mcbuilder.WithEngageWithLocalCluster(true)).
		Watches(&orcv1alpha1.User{}, child, localOnly...).
		Watches(&orcv1alpha1.Domain{}, child, localOnly...).
		Watches(&corev1.Secret{}, child, localOnly...).
		Watches(eso.NewMetadata(eso.PushSecretGVK), child, localOnly...).
		Watches(&c5c3v1alpha1.ControlPlane{}, planes, localOnly...).
		Watches(&c5c3v1alpha1.KeystoneApplicationCredential{},
			mchandler.TypedEnqueueRequestsFromMapFunc[client.Object, mcreconcile.Request](userOfCredential),
			mcbuilder.WithEngageWithLocalCluster(true), mcbuilder.WithPredicates(orders.HoldChanged)).
		Watches(&c5c3v1alpha1.KeystoneProject{}, usersOfProject, mcbuilder.WithEngageWithLocalCluster(true)).
		Watches(&appsv1.Deployment{}, consumers.Enqueue(consumerOrder), mcbuilder.WithEngageWithLocalCluster(true),
			mcbuilder.WithPredicates(consumers.Changed)).
		Watches(&appsv1.StatefulSet{}, consumers.Enqueue(consumerOrder), mcbuilder.WithEngageWithLocalCluster(true),
			mcbuilder.WithPredicates(consumers.Changed)).
		Watches(&appsv1.DaemonSet{}, consumers.Enqueue(consumerOrder), mcbuilder.WithEngageWithLocalCluster(true),
			mcbuilder.WithPredicates(consumers.Changed)).
		Complete(r)
}

// userOfCredential maps a KeystoneApplicationCredential to the KeystoneUser
// its spec.userRef names.
func userOfCredential(_ context.Context, o client.Object) []mcreconcile.Request {
	ac, ok := o.(*c5c3v1alpha1.KeystoneApplicationCredential)
	if !ok || ac.Spec.UserRef.Name == "" {
		return nil
	}
	return []mcreconcile.Request{{Request: reconcile.Request{NamespacedName: types.NamespacedName{
		Namespace: ac.Namespace, Name: ac.Spec.UserRef.Name}}}}
}

// usersOfProject maps a KeystoneProject to the KeystoneUsers naming it in
// spec.defaultProjectRef.
func usersOfProject(name multicluster.ClusterName, cl cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
	return handler.TypedEnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []mcreconcile.Request {
		var list c5c3v1alpha1.KeystoneUserList
		if err := cl.GetClient().List(ctx, &list, client.InNamespace(o.GetNamespace()), client.UnsafeDisableDeepCopy,
			client.MatchingFields{orders.IndexDefaultProjectRef: o.GetName()}); err != nil {
			return nil
		}
		var reqs []mcreconcile.Request
		for i := range list.Items {
			u := &list.Items[i]
			if ref := u.Spec.DefaultProjectRef; ref != nil && ref.Name == o.GetName() {
				reqs = append(reqs, orders.Request(orders.Order{Kind: orders.KindKeystoneUser, Cluster: string(name),
					Namespace: u.Namespace, Name: u.Name}))
			}
		}
		return reqs
	})
}
