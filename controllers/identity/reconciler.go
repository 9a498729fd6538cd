package identity

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// object is what the shared loop needs of every kind.
type object interface {
	client.Object
	KeystoneCommon() *kv1.CommonSpec
	KeystoneStatus() *kv1.CommonStatus
}

// outcome is what an actuator reports after a successful apply.
type outcome struct {
	// message becomes the Ready condition's message.
	message string
	// changes lists what was written to Keystone ("created domain service",
	// "updated domain service (description)"); each becomes a Normal event.
	// Empty when nothing was written.
	changes []string
	// repair is set by the loop when the changes repaired drift: the desired
	// state was unchanged since the last successful apply (see finish).
	repair bool
	// resyncAt is when the forced resync of a successful apply is due
	// (resyncDue of the apply's time, the one the cache records).
	resyncAt time.Time
}

// applyInput is what apply gets besides the object.
type applyInput struct {
	// values are the inputs' values (e.g. the password).
	values map[string]string
	// resync is true when the desired state is unchanged since the last
	// successful apply and this is the forced resync; an actuator may then
	// check before writing (RoleAssignment does), so a steady state writes nothing.
	resync bool
	// shared reports whether another resource of the kind, served by this
	// controller and not being deleted, records the Keystone ID id in its
	// status: such an object is not renamed or deleted through this one
	// (docs/identity.md, "Edits"). nil: none does.
	shared func(id string) (bool, error)
}

// actuator holds the Keystone calls of one kind.
type actuator[T object] interface {
	// kind is the Kind name, for logs and events.
	kind() string
	// spec returns the part of obj the desired-state hash covers.
	spec(obj T) any
	// inputs reads what the desired state depends on besides the spec, such as
	// a User's password. The returned values are folded into the hash and
	// passed to apply. An error (e.g. a missing Secret) is a ReconcileError.
	inputs(ctx context.Context, c client.Reader, obj T) (map[string]string, error)
	// apply makes Keystone match the spec: look the object up with a filtered
	// query, create it when missing, patch what differs. It MUST be idempotent,
	// MUST record the Keystone ID in obj's status, and MUST return a
	// *missingError when a dependency is absent from Keystone.
	apply(ctx context.Context, obj T, in applyInput) (outcome, error)
	// remove deletes the Keystone object (deletionPolicy delete). An object
	// already gone MUST count as success.
	remove(ctx context.Context, obj T) error
}

// forgetter is implemented by actuators that remember something per
// resource (the User's probe budget); the loop calls it when the resource is gone.
type forgetter interface {
	forgetResource(key types.NamespacedName)
}

// Options configure the shared loop.
type Options struct {
	// RefName is the keystoneRef.name this controller serves (besides empty).
	RefName string
	// Resync is the period of the forced resync that re-applies every
	// resource, probes passwords and repairs drift made outside the controller.
	Resync time.Duration
	// ProbeInterval is the shortest time between two probes of a User's
	// unchanged password (only the forced resync probes one); 0: MinResync.
	// A changed value is probed at once.
	ProbeInterval time.Duration
	// Backoff is the delay before a failed resource is retried when its
	// spec.retryInterval is unset.
	Backoff time.Duration
	// MaxConcurrentReconciles per kind.
	MaxConcurrentReconciles int

	// connect authenticates the shared Keystone session when it is not yet
	// connected (nil: always connected). Set by SetupWithManager.
	connect func(context.Context) error
}

// Reconciler is the shared reconcile loop, instantiated once per kind.
type Reconciler[T object] struct {
	client client.Client
	reader client.Reader
	// live reads from the API server, not the cache: the deletion path
	// re-reads the resource so the deletionPolicy in force decides (nil: client).
	live     client.Reader
	recorder recorder.EventRecorder
	act      actuator[T]
	newObj   func() T
	opts     Options
	cache    *appliedCache
	now      func() time.Time
	// waits and wake are optional (nil in unit tests): see wakeups.
	waits *waitSet
	wake  *wakeups
}

// Reconcile runs one pass for one resource; see the package documentation.
func (r *Reconciler[T]) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	obj := r.newObj()
	if err := r.client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.cache.forget(req.NamespacedName)
			if f, ok := any(r.act).(forgetter); ok {
				f.forgetResource(req.NamespacedName)
			}
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	common := obj.KeystoneCommon()
	isOwned := owned(common.KeystoneRef, r.opts.RefName)

	// A resource of another deployment: no status, only our finalizer removed.
	if !isOwned {
		r.cache.forget(req.NamespacedName)
		return ctrl.Result{}, r.setFinalizer(ctx, obj, false)
	}

	if !obj.GetDeletionTimestamp().IsZero() {
		return r.reconcileDelete(ctx, obj)
	}
	if err := r.setFinalizer(ctx, obj, wantsFinalizer(true, common.DeletionPolicy)); err != nil {
		return ctrl.Result{}, err
	}

	gen := obj.GetGeneration()
	orig := obj.DeepCopyObject().(T)
	in, err := r.act.inputs(ctx, r.reader, obj)
	var hash string
	if err == nil {
		hash, err = desiredHash(r.act.spec(obj), in)
	}
	if err != nil {
		return r.finish(ctx, orig, obj, outcome{}, err)
	}
	last, ok := r.cache.get(req.NamespacedName, obj.GetUID())
	if d := decideSkip(last, ok, hash, r.now(), r.opts.Resync, obj.KeystoneStatus(), gen); d.skip {
		logger.V(1).Info("desired state unchanged; Keystone not called", "resyncIn", d.after)
		return ctrl.Result{RequeueAfter: d.after}, nil
	}
	if err := r.checkDeclarations(ctx, obj); err != nil {
		return r.finish(ctx, orig, obj, outcome{}, err)
	}
	if err := r.connected(ctx); err != nil {
		return r.finish(ctx, orig, obj, outcome{}, err)
	}
	resync := ok && last.hash == hash
	out, err := r.act.apply(ctx, obj, applyInput{values: in, resync: resync, shared: r.sharedID(ctx, obj)})
	out.repair = isRepair(resync, len(out.changes))
	if err == nil {
		at := r.now()
		r.cache.set(req.NamespacedName, applied{uid: obj.GetUID(), hash: hash, at: at})
		out.resyncAt = resyncDue(at, r.opts.Resync, obj.GetUID())
	}
	return r.finish(ctx, orig, obj, out, err)
}

// checkDeclarations applies the rule for several declarations of one
// Keystone object (declarations.go) to obj, against the resources of its kind
// in the controller's cache: served by this controller, not being deleted,
// declaring the same object. It returns the conflict obj reports, or nil.
func (r *Reconciler[T]) checkDeclarations(ctx context.Context, obj T) error {
	d, ok := any(r.act).(declarer[T])
	if !ok {
		return nil
	}
	key, what, fields := d.declares(obj)
	items, err := d.declarations(ctx, r.client, obj.GetNamespace(), client.MatchingFields{declaresIndex: declaresValue(key)})
	if err != nil {
		return err
	}
	self := declaration{name: obj.GetName(), created: obj.GetCreationTimestamp(), fields: fields}
	all := []declaration{self}
	for _, o := range items {
		if o.GetName() == obj.GetName() || !o.GetDeletionTimestamp().IsZero() || !owned(o.KeystoneCommon().KeystoneRef, r.opts.RefName) {
			continue
		}
		if k, _, fs := d.declares(o); k == key {
			all = append(all, declaration{name: o.GetName(), created: o.GetCreationTimestamp(), fields: fs})
		}
	}
	return declarationConflict(r.act.kind(), what, self, all)
}

// idRecorder is implemented by every kind: the Keystone IDs its status records.
type idRecorder interface{ KeystoneIDs() []string }

// sharedID returns applyInput.shared for obj: it lists the resources of the
// kind in every watched namespace (the controller's cache) once, when first
// asked, and reports whether one besides obj that this controller serves and
// that is not being deleted records the ID.
func (r *Reconciler[T]) sharedID(ctx context.Context, obj T) func(string) (bool, error) {
	d, ok := any(r.act).(declarer[T])
	if !ok {
		return nil
	}
	var ids map[string]bool
	return func(id string) (bool, error) {
		if ids == nil {
			items, err := d.declarations(ctx, r.client, "")
			if err != nil {
				return false, err
			}
			ids = map[string]bool{}
			for _, o := range items {
				if o.GetUID() == obj.GetUID() || !o.GetDeletionTimestamp().IsZero() || !owned(o.KeystoneCommon().KeystoneRef, r.opts.RefName) {
					continue
				}
				if rec, ok := any(o).(idRecorder); ok {
					for _, v := range rec.KeystoneIDs() {
						ids[v] = true
					}
				}
			}
		}
		return ids[id], nil
	}
}

// connected makes sure the Keystone session is authenticated. While Keystone
// is unreachable or rejects the admin, the error (a *keystone.ConnectError
// naming the endpoint or the credential) becomes the resource's Ready=False
// message and the resource is retried like any failure; the controller keeps
// running and converges when Keystone answers (docs/identity.md, "Running it").
func (r *Reconciler[T]) connected(ctx context.Context) error {
	if r.opts.connect == nil {
		return nil
	}
	return r.opts.connect(ctx)
}

// finish writes the Ready condition (the only status writer of the loop),
// emits events and chooses the requeue.
func (r *Reconciler[T]) finish(ctx context.Context, orig, obj T, out outcome, applyErr error) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	if r.waits != nil {
		r.waits.note(client.ObjectKeyFromObject(obj), applyErr)
	}
	if applyErr == nil && len(out.changes) > 0 {
		r.wake.fire(strings.ToLower(r.act.kind()))
	}
	for _, ch := range out.changes {
		if out.repair {
			// Drift repair is visible: a Normal event and an info line naming
			// what was missing or changed, and a count per kind.
			logger.Info("repaired drift in Keystone", "kind", r.act.kind(), "change", ch)
			driftRepairs.WithLabelValues(r.act.kind()).Inc()
			r.recorder.Eventf(obj, nil, corev1.EventTypeNormal, kv1.EventReasonDriftRepaired, "Repair", "drift repaired: %s", ch)
			continue
		}
		r.recorder.Eventf(obj, nil, corev1.EventTypeNormal, kv1.ReasonReconciled, "Apply", "%s", ch)
	}
	if err := r.writeStatus(ctx, orig, obj, readyCondition(obj.GetGeneration(), out.message, applyErr), len(out.changes) > 0); err != nil {
		return ctrl.Result{}, err
	}
	if applyErr != nil {
		logger.Info("reconcile failed; retrying", "error", applyErr.Error())
		return ctrl.Result{RequeueAfter: retryAfter(obj.KeystoneCommon(), r.opts.Backoff)}, nil
	}
	// At least a millisecond: a zero RequeueAfter would mean no requeue.
	return ctrl.Result{RequeueAfter: max(out.resyncAt.Sub(r.now()), time.Millisecond)}, nil
}

// writeStatus patches the status subresource when the condition or the
// per-kind fields changed. It emits an event when Ready flips or its message
// changes on failure; reported says the apply already emitted its changes.
func (r *Reconciler[T]) writeStatus(ctx context.Context, orig, obj T, c metav1.Condition, reported bool) error {
	prev := meta.FindStatusCondition(orig.KeystoneStatus().Conditions, kv1.ConditionReady)
	setStatus(obj.KeystoneStatus(), obj.GetGeneration(), c)
	if same, err := equalStatus(orig, obj); err != nil || same {
		return err
	}
	if err := r.client.Status().Patch(ctx, obj, client.MergeFrom(orig)); err != nil {
		return client.IgnoreNotFound(err)
	}
	// A first Ready=True after a reported write ("created ...") needs no
	// second event; failures, recoveries and changed failure messages do.
	flipped := (prev == nil && (c.Status != metav1.ConditionTrue || !reported)) || (prev != nil && prev.Status != c.Status)
	if flipped || (c.Status != metav1.ConditionTrue && prev != nil && prev.Message != c.Message) {
		typ := corev1.EventTypeNormal
		if c.Status != metav1.ConditionTrue {
			typ = corev1.EventTypeWarning
		}
		r.recorder.Eventf(obj, nil, typ, c.Reason, "Reconcile", "%s", c.Message)
	}
	return nil
}

// reconcileDelete removes the Keystone object when our finalizer is present
// and the live resource still asks for it, then the finalizer. The resource
// is re-read from the API server first: deletionPolicy (or keystoneRef) may
// have changed while it was terminating, after the cached copy was taken, and
// the policy in force at deletion decides (docs/identity.md, "Common fields").
func (r *Reconciler[T]) reconcileDelete(ctx context.Context, obj T) (ctrl.Result, error) {
	key := client.ObjectKeyFromObject(obj)
	r.cache.forget(key)
	if !controllerutil.ContainsFinalizer(obj, kv1.Finalizer) {
		return ctrl.Result{}, nil
	}
	live := r.newObj()
	reader := r.live
	if reader == nil {
		reader = r.client
	}
	if err := reader.Get(ctx, key, live); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	obj = live
	common := obj.KeystoneCommon()
	if !deletesFromKeystone(owned(common.KeystoneRef, r.opts.RefName), common.DeletionPolicy) {
		log.FromContext(ctx).Info("deletionPolicy is no longer delete; the Keystone object is kept", "deletionPolicy", common.DeletionPolicy)
		r.recorder.Eventf(obj, nil, corev1.EventTypeNormal, kv1.EventReasonRetained, "Delete", "deletionPolicy is %s: %s kept in Keystone", policyName(common.DeletionPolicy), r.act.kind())
		return ctrl.Result{}, r.setFinalizer(ctx, obj, false)
	}
	if err := r.connected(ctx); err != nil {
		return r.finish(ctx, obj.DeepCopyObject().(T), obj, outcome{}, fmt.Errorf("delete from Keystone: %w", err))
	}
	if err := r.act.remove(ctx, obj); err != nil {
		var me *missingError
		if !errors.As(err, &me) { // a missing parent means the object is gone too
			return r.finish(ctx, obj.DeepCopyObject().(T), obj, outcome{}, fmt.Errorf("delete from Keystone: %w", err))
		}
	}
	r.recorder.Eventf(obj, nil, corev1.EventTypeNormal, kv1.EventReasonDeleted, "Delete", "deleted %s from Keystone", r.act.kind())
	return ctrl.Result{}, r.setFinalizer(ctx, obj, false)
}

// setFinalizer adds or removes kv1.Finalizer, writing only on a change.
func (r *Reconciler[T]) setFinalizer(ctx context.Context, obj T, want bool) error {
	has := controllerutil.ContainsFinalizer(obj, kv1.Finalizer)
	if has == want {
		return nil
	}
	base := obj.DeepCopyObject().(T)
	if want {
		controllerutil.AddFinalizer(obj, kv1.Finalizer)
	} else {
		controllerutil.RemoveFinalizer(obj, kv1.Finalizer)
	}
	return client.IgnoreNotFound(r.client.Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})))
}

// equalStatus compares the status of two objects of the same kind.
func equalStatus(a, b client.Object) (bool, error) {
	ua, err := runtime.DefaultUnstructuredConverter.ToUnstructured(a)
	if err != nil {
		return false, err
	}
	ub, err := runtime.DefaultUnstructuredConverter.ToUnstructured(b)
	if err != nil {
		return false, err
	}
	return equality.Semantic.DeepEqual(ua["status"], ub["status"]), nil
}
