package identity

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/osh/reconcile"
)

// object is what the loop needs of every kind.
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
	// "updated domain service (description)"); each becomes a Normal event,
	// or a DriftRepaired one on a resync. Empty when nothing was written.
	changes []string
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

// desired is the desired state the loop hashes: the spec and the inputs.
type desired struct {
	Spec  any               `json:"spec"`
	Extra map[string]string `json:"extra,omitempty"`
}

// kindActuator adapts one kind's actuator to reconcile.Actuator: the
// identity controller's serving rule, declarations check, Keystone session,
// deletion policy and retry interval.
type kindActuator[T object] struct {
	act      actuator[T]
	client   client.Client
	reader   client.Reader
	recorder events.EventRecorder
	opts     Options
	// waits and wake are optional (nil in unit tests): see wakeups.
	waits *waitSet
	wake  *wakeups
}

// newLoop is the reconcile loop of one kind; live re-reads a resource being
// deleted (nil: c).
func newLoop[T object](k *kindActuator[T], live client.Reader, newObj func() T, now func() time.Time) *reconcile.Loop[T] {
	if live == nil {
		live = k.client
	}
	return &reconcile.Loop[T]{
		Controller: "identity", Backend: "Keystone", Client: k.client, Live: live, Act: k, New: newObj,
		Finalizer: kv1.Finalizer, Memory: reconcile.NewMemory(), Now: now,
		Policy:  reconcile.Policy{Schedule: resyncSchedule{k.opts.Resync}, RequireReady: true},
		Reasons: reconcile.Reasons{OK: kv1.ReasonReconciled, Failed: kv1.ReasonReconcileError, GenerationOnFailure: true},
		Events: reconcile.Events{Recorder: k.recorder, Action: "Reconcile", ChangeReason: kv1.ReasonReconciled,
			RepairPrefix: "drift repaired: ", DeletedReason: kv1.EventReasonDeleted, DeletedNote: "deleted %s from Keystone"},
		Repairs: driftRepairs,
	}
}

func (k *kindActuator[T]) Kind() string { return k.act.kind() }

func (k *kindActuator[T]) Serves(obj T) string {
	if owned(obj.KeystoneCommon().KeystoneRef, k.opts.RefName) {
		return ""
	}
	return "keystoneRef names another Keystone deployment"
}

func (k *kindActuator[T]) WantsFinalizer(obj T) bool {
	return wantsFinalizer(true, obj.KeystoneCommon().DeletionPolicy)
}

func (k *kindActuator[T]) Status(obj T) reconcile.Status {
	st := obj.KeystoneStatus()
	return reconcile.Status{Conditions: &st.Conditions, ObservedGeneration: &st.ObservedGeneration}
}

func (k *kindActuator[T]) Resolve(ctx context.Context, obj T) (any, error) {
	in, err := k.act.inputs(ctx, k.reader, obj)
	if err != nil {
		return nil, err
	}
	return desired{Spec: k.act.spec(obj), Extra: in}, nil
}

// Apply checks the declarations, connects the session and applies.
func (k *kindActuator[T]) Apply(ctx context.Context, obj T, d any, resync bool) (reconcile.Outcome, error) {
	if err := k.checkDeclarations(ctx, obj); err != nil {
		return reconcile.Outcome{}, err
	}
	if err := k.connected(ctx); err != nil {
		return reconcile.Outcome{}, err
	}
	out, err := k.act.apply(ctx, obj, applyInput{values: d.(desired).Extra, resync: resync, shared: k.sharedID(ctx, obj)})
	return reconcile.Outcome{Message: out.message, Changes: out.changes}, err
}

// Keep: the live resource no longer asks for deletion from Keystone
// (docs/identity.md, "Common fields"): a Retained event says so.
func (k *kindActuator[T]) Keep(ctx context.Context, obj T) (bool, error) {
	common := obj.KeystoneCommon()
	if deletesFromKeystone(owned(common.KeystoneRef, k.opts.RefName), common.DeletionPolicy) {
		return false, nil
	}
	log.FromContext(ctx).Info("deletionPolicy is no longer delete; the Keystone object is kept", "deletionPolicy", common.DeletionPolicy)
	k.recorder.Eventf(obj, nil, corev1.EventTypeNormal, kv1.EventReasonRetained, "Delete", "deletionPolicy is %s: %s kept in Keystone", policyName(common.DeletionPolicy), k.act.kind())
	return true, nil
}

// Delete removes the Keystone object; a missing parent means it is gone too.
func (k *kindActuator[T]) Delete(ctx context.Context, obj T) error {
	if err := k.connected(ctx); err != nil {
		return fmt.Errorf("delete from Keystone: %w", err)
	}
	if err := k.act.remove(ctx, obj); err != nil {
		var me *missingError
		if !errors.As(err, &me) {
			return fmt.Errorf("delete from Keystone: %w", err)
		}
	}
	return nil
}

func (k *kindActuator[T]) RetryAfter(obj T, _ int, _ bool) time.Duration {
	return retryAfter(obj.KeystoneCommon(), k.opts.Backoff)
}

// Observed records a resource waiting on a missing dependency, and wakes the
// waiters of this kind after a write (wakeup.go).
func (k *kindActuator[T]) Observed(obj T, changed bool, err error) {
	if k.waits != nil {
		k.waits.note(client.ObjectKeyFromObject(obj), err)
	}
	if err == nil && changed {
		k.wake.fire(dependencyKey(k.act.kind()))
	}
}

func (k *kindActuator[T]) Forget(key types.NamespacedName) {
	if f, ok := any(k.act).(forgetter); ok {
		f.forgetResource(key)
	}
}

// Missing marks a dependency absent from Keystone (reconcile.Missing).
func (*missingError) Missing() bool { return true }

// resyncSchedule is the identity controller's forced resync (resyncDue).
type resyncSchedule struct{ period time.Duration }

func (s resyncSchedule) Due(at time.Time, uid types.UID) (time.Time, time.Time) {
	due := resyncDue(at, s.period, uid)
	return due, due
}

// After is at least a millisecond: a zero RequeueAfter would mean no requeue.
func (s resyncSchedule) After(now time.Time, uid types.UID) time.Duration {
	return max(resyncDue(now, s.period, uid).Sub(now), time.Millisecond)
}

// checkDeclarations applies the rule for several declarations of one
// Keystone object (declarations.go) to obj, against the resources of its kind
// in the controller's cache: served by this controller, not being deleted,
// declaring the same object. It returns the conflict obj reports, or nil.
func (k *kindActuator[T]) checkDeclarations(ctx context.Context, obj T) error {
	d, ok := any(k.act).(declarer[T])
	if !ok {
		return nil
	}
	key, what, fields := d.declares(obj)
	items, err := d.declarations(ctx, k.client, obj.GetNamespace(), client.MatchingFields{declaresIndex: declaresValue(key)})
	if err != nil {
		return err
	}
	self := declaration{name: obj.GetName(), created: obj.GetCreationTimestamp(), fields: fields}
	all := []declaration{self}
	for _, o := range items {
		if o.GetName() == obj.GetName() || !o.GetDeletionTimestamp().IsZero() || !owned(o.KeystoneCommon().KeystoneRef, k.opts.RefName) {
			continue
		}
		if key2, _, fs := d.declares(o); key2 == key {
			all = append(all, declaration{name: o.GetName(), created: o.GetCreationTimestamp(), fields: fs})
		}
	}
	return declarationConflict(k.act.kind(), what, self, all)
}

// idRecorder is implemented by every kind: the Keystone IDs its status records.
type idRecorder interface{ KeystoneIDs() []string }

// sharedID returns applyInput.shared for obj: it lists the resources of the
// kind in every watched namespace (the controller's cache) once, when first
// asked, and reports whether one besides obj that this controller serves and
// that is not being deleted records the ID.
func (k *kindActuator[T]) sharedID(ctx context.Context, obj T) func(string) (bool, error) {
	d, ok := any(k.act).(declarer[T])
	if !ok {
		return nil
	}
	var ids map[string]bool
	return func(id string) (bool, error) {
		if ids == nil {
			items, err := d.declarations(ctx, k.client, "")
			if err != nil {
				return false, err
			}
			ids = map[string]bool{}
			for _, o := range items {
				if o.GetUID() == obj.GetUID() || !o.GetDeletionTimestamp().IsZero() || !owned(o.KeystoneCommon().KeystoneRef, k.opts.RefName) {
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
func (k *kindActuator[T]) connected(ctx context.Context) error {
	if k.opts.connect == nil {
		return nil
	}
	return k.opts.connect(ctx)
}
