package keystoneservice

import (
	"context"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/consumers"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/delivery/eso"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneservices,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneservices/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneservices/finalizers,verbs=update
// +kubebuilder:rbac:groups=c5c3.io,resources=controlplanes,verbs=get;list;watch
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=openstack.k-orc.cloud,resources=services;endpoints;users;projects;roles;domains,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=external-secrets.io,resources=pushsecrets;externalsecrets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=external-secrets.io,resources=secretstores;clustersecretstores,verbs=get;list;watch

// Options configure the reconciler; zero values take the defaults.
type Options struct {
	// Granter assigns roles; default grants.Keystone.
	Granter grants.Granter
	// Verifier checks a password generation with Keystone before delivery;
	// default controlplane.KeystoneVerifier.
	Verifier controlplane.Verifier
}

// SetupWithManager registers the KeystoneService reconciler; the scheme must
// hold client-go's, c5c3.io's and K-ORC's types and ESO's CRDs must be installed.
func SetupWithManager(mgr ctrl.Manager, opts ...Options) error {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Granter == nil {
		o.Granter = grants.Keystone{Sessions: &grants.Sessions{}}
	}
	if o.Verifier == nil {
		o.Verifier = controlplane.KeystoneVerifier{}
	}
	c := mgr.GetClient()
	r := &Reconciler{client: c, reader: mgr.GetAPIReader(), recorder: mgr.GetEventRecorder(ControllerName), now: metav1.Now,
		granter: o.Granter, verifier: o.Verifier}
	byLabel := handler.EnqueueRequestsFromMapFunc(ownerOfChild)
	return ctrl.NewControllerManagedBy(mgr).
		Named("keystoneservice").
		For(&c5c3v1alpha1.KeystoneService{}).
		Watches(&c5c3v1alpha1.ControlPlane{}, handler.EnqueueRequestsFromMapFunc(registrationsOfPlane(c))).
		Watches(&orcv1alpha1.Service{}, byLabel).
		Watches(&orcv1alpha1.Endpoint{}, byLabel).
		Watches(&orcv1alpha1.User{}, byLabel).
		Watches(&orcv1alpha1.Project{}, byLabel).
		Watches(&orcv1alpha1.Role{}, byLabel).
		Watches(&orcv1alpha1.Domain{}, byLabel).
		Watches(&corev1.Secret{}, byLabel).
		Watches(eso.NewMetadata(eso.PushSecretGVK), byLabel).
		Watches(eso.New(eso.ExternalSecretGVK), byLabel).
		// A SecretStore turning Ready unblocks its namespace's deliveries.
		Watches(eso.New(eso.SecretStoreGVK), handler.EnqueueRequestsFromMapFunc(lifecycle.InNamespace[c5c3v1alpha1.KeystoneServiceList](c))).
		Watches(&appsv1.Deployment{}, consumers.EnqueueLocal(consumerOrder), builder.WithPredicates(consumers.Changed)).
		Watches(&appsv1.StatefulSet{}, consumers.EnqueueLocal(consumerOrder), builder.WithPredicates(consumers.Changed)).
		Watches(&appsv1.DaemonSet{}, consumers.EnqueueLocal(consumerOrder), builder.WithPredicates(consumers.Changed)).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			return r.loop().Reconcile(ctx, mcreconcile.Request{Request: req})
		}))
}
