// Package topology is the controller of the rabbitmq.osh.openstack.org kinds
// (docs/topology.md): one generic reconcile loop (reconciler.go) and one small
// actuator per kind that sends the idempotent request of docs/topology.md to
// the RabbitMQ management API through rabbit-hole.
package topology

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// +kubebuilder:rbac:groups=rabbitmq.osh.openstack.org,resources=vhosts;users;permissions;queues;exchanges;bindings;policies;topicpermissions;operatorpolicies;shovels;federations;superstreams,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=rabbitmq.osh.openstack.org,resources=vhosts/status;users/status;permissions/status;queues/status;exchanges/status;bindings/status;policies/status;topicpermissions/status;operatorpolicies/status;shovels/status;federations/status;superstreams/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=rabbitmq.osh.openstack.org,resources=vhosts/finalizers;users/finalizers;permissions/finalizers;queues/finalizers;exchanges/finalizers;bindings/finalizers;policies/finalizers;topicpermissions/finalizers;operatorpolicies/finalizers;shovels/finalizers;federations/finalizers;superstreams/finalizers,verbs=update
// +kubebuilder:rbac:groups=rabbitmq.osh.openstack.org,resources=exchanges;queues;bindings,verbs=create
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch

// DefaultConcurrency is the default Options.MaxConcurrentReconciles (and the
// topology subcommand's --concurrency): resources of one kind reconciled in
// parallel. Measured by hack/bench (docs/performance.md).
const DefaultConcurrency = 4

// Options configure the topology controllers.
type Options struct {
	// Broker is the management API client (internal/rabbitmq.NewClient).
	Broker *rabbithole.Client
	// ClusterName is the rabbitmqClusterReference.name served here.
	ClusterName string
	// Namespace is the controller's own namespace; resources elsewhere, or
	// referencing a cluster elsewhere, are not served. Empty serves every
	// namespace the cache sees, with references kept to their own namespace.
	Namespace string
	// ResyncPeriod is how long a declared resource goes without a request
	// before it is declared again, repairing out-of-band deletions and
	// changes. Default 10 minutes.
	ResyncPeriod time.Duration
	// BackoffBase and BackoffMax bound the per-resource exponential backoff
	// after a failure. Defaults 1 s and 2 minutes.
	BackoffBase, BackoffMax time.Duration
	// DependencyRetry caps the backoff when the broker answers 404 to a
	// declaration (a vhost, queue or exchange not declared yet), or 400
	// vhost_or_user_not_found to a Permission, so dependents follow their
	// dependency promptly: for the first failures, then doubling
	// (retryDelay). Default 5 s.
	DependencyRetry time.Duration
	// DependencyWait bounds how long a Binding that has never been declared
	// waits, without a request or a status write, for the Queue or Exchange
	// resources of its namespace that declare its source or destination to
	// report Ready (docs/topology.md, "Reconciliation"), counted from the
	// Binding's creationTimestamp (the apiserver's clock) on the
	// controller's clock. Default 2 minutes.
	DependencyWait time.Duration
	// MaxConcurrentReconciles per kind; default DefaultConcurrency.
	MaxConcurrentReconciles int
	// DeleteGuestUser deletes the user "guest" every GuestInterval (default
	// 30 s) while this replica leads (docs/topology.md, "Configuration").
	DeleteGuestUser bool
	GuestInterval   time.Duration
}

func (o *Options) defaults() error {
	if o.Broker == nil {
		return fmt.Errorf("topology: Options.Broker is required")
	}
	if o.ClusterName == "" {
		return fmt.Errorf("topology: Options.ClusterName is required")
	}
	if o.ResyncPeriod <= 0 {
		o.ResyncPeriod = 10 * time.Minute
	}
	if o.BackoffBase <= 0 {
		o.BackoffBase = time.Second
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = 2 * time.Minute
	}
	if o.DependencyRetry <= 0 {
		o.DependencyRetry = 5 * time.Second
	}
	if o.DependencyWait <= 0 {
		o.DependencyWait = 2 * time.Minute
	}
	if o.MaxConcurrentReconciles <= 0 {
		o.MaxConcurrentReconciles = DefaultConcurrency
	}
	if o.GuestInterval <= 0 {
		o.GuestInterval = 30 * time.Second
	}
	return nil
}

// Controllers are the running controllers, one per kind.
type Controllers struct {
	opts    Options
	skipped *sync.Map
}

// skippedLogged reports whether the controller decided a resource is not
// its own (and logged so). Tests wait on it instead of sleeping.
func (c *Controllers) skippedLogged(uid types.UID) bool {
	_, ok := c.skipped.Load(uid)
	return ok
}

// Field indexes used to map Secret and User events to the resources
// depending on them.
const (
	indexImportSecret = ".spec.importCredentialsSecret.name"
	indexUserRef      = ".spec.userReference.name"
	indexURISecret    = ".spec.uriSecret.name"
)

// nameOf indexes a resource by the name of the reference ref returns; none
// when it is unset.
func nameOf[T client.Object](ref func(T) *corev1.LocalObjectReference) func(client.Object) []string {
	return func(o client.Object) []string {
		if r := ref(o.(T)); r != nil {
			return []string{r.Name}
		}
		return nil
	}
}

// referenceIndexes index the resources by the Secret or User they name, so
// an event of that object wakes them.
func referenceIndexes() []fieldIndex {
	return []fieldIndex{
		{&rmqv1.User{}, indexImportSecret, nameOf(func(u *rmqv1.User) *corev1.LocalObjectReference { return u.Spec.ImportCredentialsSecret })},
		{&rmqv1.Permission{}, indexUserRef, nameOf(func(p *rmqv1.Permission) *corev1.LocalObjectReference { return p.Spec.UserReference })},
		{&rmqv1.TopicPermission{}, indexUserRef, nameOf(func(p *rmqv1.TopicPermission) *corev1.LocalObjectReference { return p.Spec.UserReference })},
		{&rmqv1.Shovel{}, indexURISecret, nameOf(func(s *rmqv1.Shovel) *corev1.LocalObjectReference { return s.Spec.URISecret })},
		{&rmqv1.Federation{}, indexURISecret, nameOf(func(f *rmqv1.Federation) *corev1.LocalObjectReference { return f.Spec.URISecret })},
	}
}

// watching adds a watch of kind whose events wake the resources fn maps
// them to.
func watching(kind client.Object, fn handler.MapFunc) func(*ctrl.Builder) *ctrl.Builder {
	return func(bld *ctrl.Builder) *ctrl.Builder {
		return bld.Watches(kind, handler.EnqueueRequestsFromMapFunc(fn))
	}
}

// ownsSuperStreamChildren watches the Exchanges, Queues and Bindings a
// SuperStream owns (superstream_children.go).
func ownsSuperStreamChildren(bld *ctrl.Builder) *ctrl.Builder {
	return bld.Owns(&rmqv1.Exchange{}).Owns(&rmqv1.Queue{}).Owns(&rmqv1.Binding{})
}

// SetupWithManager registers the controllers of every kind, their watches and, when
// enabled, the guest user deletion with mgr.
func SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts Options) (*Controllers, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	c := &Controllers{opts: opts, skipped: &sync.Map{}}
	kube := mgr.GetClient()
	idx := mgr.GetFieldIndexer()
	for _, ix := range append(referenceIndexes(), dependencyIndexes...) {
		if err := idx.IndexField(ctx, ix.obj, ix.key, ix.fn); err != nil {
			return nil, err
		}
	}

	b := opts.Broker
	steps := []error{
		setup(mgr, c, "Vhost", func() *rmqv1.Vhost { return &rmqv1.Vhost{} }, vhostActuator{b}, nil),
		setup(mgr, c, "User", func() *rmqv1.User { return &rmqv1.User{} },
			userActuator{broker: b, kube: kube, scheme: mgr.GetScheme()},
			watching(&corev1.Secret{}, usersOfSecret(kube))),
		setup(mgr, c, "Permission", func() *rmqv1.Permission { return &rmqv1.Permission{} },
			permissionActuator{broker: b, kube: kube, scheme: mgr.GetScheme()},
			watching(&rmqv1.User{}, referrers(kube, indexUserRef, func() client.ObjectList { return &rmqv1.PermissionList{} }))),
		setup(mgr, c, "Exchange", func() *rmqv1.Exchange { return &rmqv1.Exchange{} }, exchangeActuator(b), nil),
		setup(mgr, c, "Queue", func() *rmqv1.Queue { return &rmqv1.Queue{} }, newQueueActuator(b), nil),
		setup(mgr, c, "Binding", func() *rmqv1.Binding { return &rmqv1.Binding{} }, bindingActuator{broker: b, kube: kube},
			func(bld *ctrl.Builder) *ctrl.Builder {
				return bld.
					Watches(&rmqv1.Queue{}, handler.EnqueueRequestsFromMapFunc(bindingsOfDependency(kube)), builder.WithPredicates(readyReported)).
					Watches(&rmqv1.Exchange{}, handler.EnqueueRequestsFromMapFunc(bindingsOfDependency(kube)), builder.WithPredicates(readyReported))
			}),
		setup(mgr, c, "Policy", func() *rmqv1.Policy { return &rmqv1.Policy{} }, policyActuator(b), nil),
		setup(mgr, c, "OperatorPolicy", func() *rmqv1.OperatorPolicy { return &rmqv1.OperatorPolicy{} },
			operatorPolicyActuator(b), nil),
		setup(mgr, c, "Shovel", func() *rmqv1.Shovel { return &rmqv1.Shovel{} }, shovelActuator(b, kube),
			watching(&corev1.Secret{}, referrers(kube, indexURISecret, func() client.ObjectList { return &rmqv1.ShovelList{} }))),
		setup(mgr, c, "Federation", func() *rmqv1.Federation { return &rmqv1.Federation{} }, federationActuator(b, kube),
			watching(&corev1.Secret{}, referrers(kube, indexURISecret, func() client.ObjectList { return &rmqv1.FederationList{} }))),
		setup(mgr, c, "SuperStream", func() *rmqv1.SuperStream { return &rmqv1.SuperStream{} },
			superStreamActuator{kube: kube, scheme: mgr.GetScheme()}, ownsSuperStreamChildren),
		setup(mgr, c, "TopicPermission", func() *rmqv1.TopicPermission { return &rmqv1.TopicPermission{} },
			topicPermissionActuator{broker: b, users: userRef{kube: kube, scheme: mgr.GetScheme()}},
			watching(&rmqv1.User{}, referrers(kube, indexUserRef, func() client.ObjectList { return &rmqv1.TopicPermissionList{} }))),
	}
	for _, err := range steps {
		if err != nil {
			return nil, err
		}
	}
	if opts.DeleteGuestUser {
		if err := mgr.Add(&guestReaper{broker: b, interval: opts.GuestInterval}); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func setup[T object](mgr ctrl.Manager, c *Controllers, kind string, newObj func() T, act brokerKind[T],
	extra func(*ctrl.Builder) *ctrl.Builder) error {
	newList, err := listOf(mgr.GetScheme(), newObj())
	if err != nil {
		return err
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), newObj(), declaresIndex, func(o client.Object) []string {
		if k := act.indexKey(o.(T)); k != "" {
			return []string{declaresValue(k)}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("index %ss by the broker object they declare: %w", kind, err)
	}
	k := &kindActuator[T]{kind: kind, client: mgr.GetClient(), newList: newList, act: act, opts: &c.opts,
		events: mgr.GetEventRecorder("orderhub-topology")}
	r := newLoop(k, c, newObj, time.Now)
	bld := ctrl.NewControllerManagedBy(mgr).
		For(newObj()).
		Watches(newObj(), handler.EnqueueRequestsFromMapFunc(declarationsOfSameObject[T](mgr.GetClient(), act, newList)),
			builder.WithPredicates(declarationLeft[T](act))).
		Named("topology-" + strings.ToLower(kind)).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: c.opts.MaxConcurrentReconciles,
			// Broker failures are retried by the per-resource backoff of
			// the reconciler; this limiter only paces Kubernetes API errors.
			RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](c.opts.BackoffBase, c.opts.BackoffMax),
		})
	if extra != nil {
		bld = extra(bld)
	}
	return bld.Complete(r)
}

// usersOfSecret maps a Secret to the Users importing it and to the User
// whose generated Secret it is.
func usersOfSecret(kube client.Client) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		var users rmqv1.UserList
		var out []reconcile.Request
		if err := kube.List(ctx, &users, client.InNamespace(o.GetNamespace()), client.MatchingFields{indexImportSecret: o.GetName()}); err == nil {
			for _, u := range users.Items {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&u)})
			}
		}
		if name, ok := strings.CutSuffix(o.GetName(), GeneratedSecretSuffix); ok && name != "" {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}})
		}
		return out
	}
}

// referrers maps an object to the resources of newList's kind in its
// namespace whose field index (referenceIndexes) holds its name.
func referrers(kube client.Client, index string, newList func() client.ObjectList) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		list := newList()
		if err := kube.List(ctx, list, client.InNamespace(o.GetNamespace()), client.MatchingFields{index: o.GetName()}); err != nil {
			return nil
		}
		var out []reconcile.Request
		_ = apimeta.EachListItem(list, func(it runtime.Object) error {
			if m, ok := it.(client.Object); ok {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(m)})
			}
			return nil
		})
		return out
	}
}

// listOf returns a constructor of the list type of obj's kind (its kind with
// "List" appended, from scheme).
func listOf(scheme *runtime.Scheme, obj client.Object) (func() client.ObjectList, error) {
	gvk, err := apiutil.GVKForObject(obj, scheme)
	if err != nil {
		return nil, err
	}
	gvk.Kind += "List"
	if _, err := scheme.New(gvk); err != nil {
		return nil, err
	}
	return func() client.ObjectList {
		l, _ := scheme.New(gvk) // checked above
		return l.(client.ObjectList)
	}, nil
}
