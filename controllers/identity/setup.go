package identity

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// Defaults of Options.
const (
	DefaultResync  = 30 * time.Minute
	DefaultBackoff = 10 * time.Second
	// DefaultRefName is the keystoneRef.name served besides the empty one: the
	// Keystone deployment of OpenStack-Helm's keystone chart.
	DefaultRefName = "keystone"
	// ControllerName is the event reporter and the controller name prefix.
	ControllerName = "orderhub-identity"
)

// passwordSecretIndex indexes Users by spec.passwordSecret.name, so a
// changed Secret re-triggers exactly the Users that read it.
const passwordSecretIndex = "spec.passwordSecret.name"

// SetupWithManager registers one controller per kind with mgr, all sharing sess
// (one long-lived Keystone session). The manager's cache should be limited to
// the controller's own namespace.
func SetupWithManager(mgr ctrl.Manager, sess *keystone.Session, opts Options) error {
	if opts.Resync <= 0 {
		opts.Resync = DefaultResync
	}
	if opts.ProbeInterval <= 0 {
		opts.ProbeInterval = MinResync
	}
	if opts.Backoff <= 0 {
		opts.Backoff = DefaultBackoff
	}
	if opts.MaxConcurrentReconciles <= 0 {
		opts.MaxConcurrentReconciles = 4
	}
	l := newLookups(sess.Identity)
	wake := &wakeups{}
	opts.connect = sess.Connect
	registerMetricsOnce()
	sess.WrapTransport(countRequests)
	ctx := context.Background()
	if err := mgr.GetFieldIndexer().IndexField(ctx, &kv1.User{}, passwordSecretIndex, func(o client.Object) []string {
		return []string{o.(*kv1.User).Spec.PasswordSecret.Name}
	}); err != nil {
		return fmt.Errorf("index users by password Secret: %w", err)
	}
	errs := []error{
		setup(mgr, opts, domainActuator{lookups: l}, func() *kv1.Domain { return &kv1.Domain{} }, wake, nil),
		setup(mgr, opts, projectActuator{lookups: l}, func() *kv1.Project { return &kv1.Project{} }, wake, nil),
		setup(mgr, opts, roleActuator{lookups: l}, func() *kv1.Role { return &kv1.Role{} }, wake, nil),
		setup(mgr, opts, groupActuator{lookups: l}, func() *kv1.Group { return &kv1.Group{} }, wake, nil),
		setup(mgr, opts, userActuator{lookups: l, probe: sess, self: sess.Self, budget: newProbeBudget(),
			held: newHeldPasswords(), probeInterval: opts.ProbeInterval}, func() *kv1.User { return &kv1.User{} }, wake,
			func(b *ctrl.Builder) *ctrl.Builder {
				return b.Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(usersOfSecret(mgr.GetClient())))
			}),
		setup(mgr, opts, roleAssignmentActuator{lookups: l}, func() *kv1.RoleAssignment { return &kv1.RoleAssignment{} }, wake, nil),
		setup(mgr, opts, serviceActuator{lookups: l}, func() *kv1.Service { return &kv1.Service{} }, wake, nil),
		setup(mgr, opts, endpointActuator{lookups: l}, func() *kv1.Endpoint { return &kv1.Endpoint{} }, wake, nil),
		setup(mgr, opts, identityProviderActuator{lookups: l}, func() *kv1.IdentityProvider { return &kv1.IdentityProvider{} }, wake, nil),
		setup(mgr, opts, mappingActuator{lookups: l}, func() *kv1.Mapping { return &kv1.Mapping{} }, wake, nil),
		setup(mgr, opts, protocolActuator{lookups: l}, func() *kv1.Protocol { return &kv1.Protocol{} }, wake, nil),
		setup(mgr, opts, serviceProviderActuator{lookups: l}, func() *kv1.ServiceProvider { return &kv1.ServiceProvider{} }, wake, nil),
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func setup[T object](mgr ctrl.Manager, opts Options, act actuator[T], newObj func() T, wake *wakeups, extra func(*ctrl.Builder) *ctrl.Builder) error {
	if d, ok := any(act).(declarer[T]); ok {
		if err := mgr.GetFieldIndexer().IndexField(context.Background(), newObj(), declaresIndex, declaresIndexer(d)); err != nil {
			return fmt.Errorf("index %ss by the Keystone object they declare: %w", act.kind(), err)
		}
	}
	k := &kindActuator[T]{
		act: act, client: mgr.GetClient(), reader: mgr.GetClient(), recorder: mgr.GetEventRecorder(ControllerName),
		opts: opts, wake: wake,
		waits: &waitSet{waiting: map[types.NamespacedName]string{}, events: make(chan event.GenericEvent, 64),
			newObj: func() event.GenericEvent { return event.GenericEvent{Object: newObj()} }},
	}
	r := newLoop(k, mgr.GetAPIReader(), newObj, time.Now)
	wake.register(k.waits.wake)
	b := ctrl.NewControllerManagedBy(mgr).
		Named("keystone-"+strings.ToLower(act.kind())).
		For(newObj(), builder.WithPredicates(specOrLifecycleChanged())).
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.MaxConcurrentReconciles}).
		WatchesRawSource(source.Channel(k.waits.events, &handler.EnqueueRequestForObject{}))
	if extra != nil {
		b = extra(b)
	}
	return b.Complete(r)
}

// usersOfSecret maps a Secret to the Users in its namespace that read their
// password from it.
func usersOfSecret(c client.Client) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		var list kv1.UserList
		if err := c.List(ctx, &list, client.InNamespace(o.GetNamespace()),
			client.MatchingFields{passwordSecretIndex: o.GetName()}); err != nil {
			return nil
		}
		reqs := make([]reconcile.Request, 0, len(list.Items))
		for _, u := range list.Items {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&u)})
		}
		return reqs
	}
}
