package controlplane

import (
	"context"
	"errors"
	"slices"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/delivery/eso"
)

// Defaults of Options and OpenBao.
const (
	DefaultRetryInterval   = 20 * time.Second
	DefaultRecheckInterval = 5 * time.Minute
	DefaultOpenBaoMount    = "kv-v2"
	// DefaultOpenBaoAuthMount is the Kubernetes auth method's default mount.
	DefaultOpenBaoAuthMount = "kubernetes"
	// DefaultOpenBaoRole is the tenant stores' role (upstream c5c3's).
	DefaultOpenBaoRole = "eso-tenant"
	// DefaultOpenBaoServiceAccount is the ServiceAccount of each consented
	// namespace (upstream c5c3's).
	DefaultOpenBaoServiceAccount = "eso-tenant-auth"
)

// +kubebuilder:rbac:groups=c5c3.io,resources=controlplanes,verbs=get;list;watch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneservices,verbs=get;list;watch
// +kubebuilder:rbac:groups=c5c3.io,resources=controlplanes/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=openstack.k-orc.cloud,resources=domains,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups=external-secrets.io,resources=secretstores,verbs=get;list;watch;create;update;patch;delete

// SetupWithManager registers the ControlPlane reconciler; the scheme must
// hold client-go's, c5c3.io's and K-ORC's types. Errors: an OpenBao config
// without an address (the other fields default).
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.Verifier == nil {
		opts.Verifier = KeystoneVerifier{}
	}
	if opts.RetryInterval == 0 {
		opts.RetryInterval = DefaultRetryInterval
	}
	if opts.RecheckInterval == 0 {
		opts.RecheckInterval = DefaultRecheckInterval
	}
	if opts.FailureConfirmation == 0 {
		opts.FailureConfirmation = DefaultFailureConfirmation
	}
	if ob := opts.OpenBao; ob != nil {
		if ob.Address == "" {
			return errors.New("controlplane: OpenBao needs an address")
		}
		ob.Mount = or(ob.Mount, DefaultOpenBaoMount)
		ob.AuthMount = or(ob.AuthMount, DefaultOpenBaoAuthMount)
		ob.Role = or(ob.Role, DefaultOpenBaoRole)
		ob.ServiceAccount = or(ob.ServiceAccount, DefaultOpenBaoServiceAccount)
	}
	c := mgr.GetClient()
	r := &Reconciler{client: c, recorder: mgr.GetEventRecorder(ControllerName), opts: opts, now: time.Now}
	b := ctrl.NewControllerManagedBy(mgr).
		Named("controlplane").
		For(&c5c3v1alpha1.ControlPlane{}).
		Owns(&orcv1alpha1.Domain{}).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(planesOfSecret(c))).
		// A plane created or deleted re-decides its namespace's duplicate guard.
		Watches(&c5c3v1alpha1.ControlPlane{}, handler.EnqueueRequestsFromMapFunc(lifecycle.InNamespace[c5c3v1alpha1.ControlPlaneList](c)),
			builder.WithPredicates(createOrDelete))
	if opts.OpenBao != nil {
		b = b.Watches(eso.New(eso.SecretStoreGVK), handler.EnqueueRequestsFromMapFunc(planeOfLabels)).
			// Only deletions: a removed ServiceAccount is re-created.
			Watches(&corev1.ServiceAccount{}, handler.EnqueueRequestsFromMapFunc(planeOfLabels),
				builder.WithPredicates(deleteOnly)).
			// A KeystoneService teardown holds its namespace's store (TearingDown).
			Watches(&c5c3v1alpha1.KeystoneService{}, handler.EnqueueRequestsFromMapFunc(planeOfService),
				builder.WithPredicates(deletion))
	}
	return b.Complete(lifecycle.Loop[*c5c3v1alpha1.ControlPlane, c5c3v1alpha1.ControlPlaneStatus]{
		Client: c, Kind: r, Status: statusWriter(r.recorder)})
}

// createOrDelete passes only create and delete events.
var createOrDelete = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return true },
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	UpdateFunc:  func(event.UpdateEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

// deleteOnly passes only delete events.
var deleteOnly = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	UpdateFunc:  func(event.UpdateEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

// deletion passes the updates of an object being deleted and its delete event.
var deletion = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	UpdateFunc:  func(e event.UpdateEvent) bool { return !e.ObjectNew.GetDeletionTimestamp().IsZero() },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

// planeOfService maps a KeystoneService to the ControlPlane it references.
func planeOfService(_ context.Context, o client.Object) []reconcile.Request {
	ks, ok := o.(*c5c3v1alpha1.KeystoneService)
	if !ok || ks.Spec.ControlPlaneRef.Name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: ks.ControlPlaneNamespace(), Name: ks.Spec.ControlPlaneRef.Name}}}
}

// planesOfSecret maps a Secret to the planes of its namespace that read or
// write it (SecretNames) and to the plane its labels name; the orders'
// Secrets in that namespace do not concern the plane.
func planesOfSecret(c client.Client) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		reqs := planeOfLabels(ctx, o)
		var list c5c3v1alpha1.ControlPlaneList
		if err := c.List(ctx, &list, client.InNamespace(o.GetNamespace())); err != nil {
			return reqs
		}
		for i := range list.Items {
			cp := &list.Items[i]
			key := client.ObjectKeyFromObject(cp)
			if slices.Contains(SecretNames(cp), o.GetName()) && !slices.ContainsFunc(reqs, func(r reconcile.Request) bool { return r.NamespacedName == key }) {
				reqs = append(reqs, reconcile.Request{NamespacedName: key})
			}
		}
		return reqs
	}
}

// planeOfLabels maps an object to the ControlPlane its labels name.
func planeOfLabels(_ context.Context, o client.Object) []reconcile.Request {
	l := o.GetLabels()
	if l[LabelManagedBy] != LabelManagedByValue || l[LabelControlPlane] == "" || l[LabelControlPlaneNamespace] == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: l[LabelControlPlaneNamespace], Name: l[LabelControlPlane]}}}
}
