package topology

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// object is what the generic loop needs of each of the seven kinds.
type object interface {
	client.Object
	ClusterReference() rmqv1.RabbitmqClusterReference
	EffectiveDeletionPolicy() rmqv1.DeletionPolicy
	TopologyStatus() *rmqv1.TopologyStatus
}

// actuator is the per-kind part: one small type per kind implements it.
type actuator[T object] interface {
	// Resolve reads what declaring obj needs from Kubernetes (a referenced
	// Secret or User) and returns the desired state: a JSON-marshalable value
	// that fully determines the requests Declare sends, hashed to skip no-op
	// requests. It MAY set kind-specific status fields on obj, and MAY write
	// obj's owner references (Permission). It MUST NOT
	// call the broker. An error (usually a missing dependency) is reported in
	// Ready and retried with backoff.
	Resolve(ctx context.Context, obj T) (any, error)
	// Declare sends the idempotent request(s) of the table in docs/topology.md
	// for desired. A broker refusal MUST be returned as the rabbit-hole error
	// so its text reaches Ready.
	Declare(ctx context.Context, obj T, desired any) error
	// Delete removes obj's broker object. A missing object (HTTP 404, or a
	// dependency already gone) MUST count as success.
	Delete(ctx context.Context, obj T) error
}

// dependent is implemented by an actuator whose resources wait for other
// resources of this controller before their first declaration (Binding:
// dependency.go).
type dependent[T object] interface {
	// Pending names the resource obj waits for ("" for none), reading the
	// cache only. Errors: a failed cache read.
	Pending(ctx context.Context, obj T) (string, error)
}

// reconciler is the one reconcile loop shared by the seven kinds.
type reconciler[T object] struct {
	kind    string
	client  client.Client
	newObj  func() T
	newList func() client.ObjectList
	act     actuator[T]
	opts    *Options
	events  events.EventRecorder
	skipped *sync.Map // UID → struct{}: resources whose skip was logged
	now     func() time.Time

	mu    sync.Mutex
	state map[types.NamespacedName]attempt
}

func (r *reconciler[T]) remembered(key types.NamespacedName, uid types.UID) attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.state[key]
	if a.uid != string(uid) {
		return attempt{uid: string(uid)}
	}
	return a
}

func (r *reconciler[T]) remember(key types.NamespacedName, a attempt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.state[key] = a
}

func (r *reconciler[T]) forget(key types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.state, key)
}

// Reconcile fetches the resource, leaves it alone when it is not ours (after
// removing our finalizer), finalizes it when deleted, and otherwise declares
// it when planDeclare says so and writes the Ready condition.
func (r *reconciler[T]) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	obj := r.newObj()
	if err := r.client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.NamespacedName)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}

	if why := ownership(obj.ClusterReference(), obj.GetNamespace(), r.opts.ClusterName, r.opts.Namespace); why != "" {
		r.forget(req.NamespacedName)
		if _, logged := r.skipped.LoadOrStore(obj.GetUID(), struct{}{}); !logged {
			logger.Info("not serving this resource: nothing is declared and no status is written", "reason", why)
		}
		if controllerutil.ContainsFinalizer(obj, rmqv1.Finalizer) {
			return ctrl.Result{}, r.setFinalizer(ctx, obj, false)
		}
		return ctrl.Result{}, nil
	}
	r.skipped.Delete(obj.GetUID())

	if !obj.GetDeletionTimestamp().IsZero() {
		return r.finalize(ctx, obj)
	}

	// Only deletionPolicy delete holds a finalizer (docs/topology.md,
	// "Compatibility with the upstream operator").
	wantFinalizer := obj.EffectiveDeletionPolicy() == rmqv1.DeletionPolicyDelete
	if controllerutil.ContainsFinalizer(obj, rmqv1.Finalizer) != wantFinalizer {
		if err := r.setFinalizer(ctx, obj, wantFinalizer); err != nil {
			return ctrl.Result{}, err
		}
	}

	before := obj.DeepCopyObject().(T)
	now := r.now()
	if d, ok := r.act.(dependent[T]); ok && findReady(obj.TopologyStatus()) == nil {
		pending, err := d.Pending(ctx, obj)
		if err != nil {
			// Declare as before the wait existed: the broker's 404 and
			// the dependency retry order it then.
			logger.V(1).Info("dependency check failed; declaring without it", "error", err.Error())
			pending = ""
		}
		if left, wait := waitsForDependency(obj.GetCreationTimestamp().Time, pending, now, r.opts.DependencyWait); wait {
			logger.V(1).Info("waiting for a dependency to be declared", "dependency", pending, "atMost", left.String())
			dependencyWaitsTotal.WithLabelValues(r.kind).Inc()
			return ctrl.Result{RequeueAfter: min(left, r.opts.DependencyRetry)}, nil
		}
	}
	last := r.remembered(req.NamespacedName, obj.GetUID())

	desired, key, err := r.resolve(ctx, obj)
	if isDuplicate(err) {
		// A younger declaration records nothing Resolve found (a
		// User's status.username): it declared nothing.
		obj = before.DeepCopyObject().(T)
	}
	p := planDeclare(last, key, now, r.opts.ResyncPeriod)

	// verify: a forced resync, or first sight after a restart of a resource
	// that was Ready, reads the broker first and declares only on drift.
	verify := err == nil && p.declare && (last.ok && last.key == key || last.key == "" && readyAtGeneration(obj))
	inSync, drift := false, ""
	if verify {
		inSync, drift = observeDrift(ctx, r.act, obj, desired)
	} else if !last.ok && last.key == key {
		drift = last.drift // a repair whose declaration failed and is retried
	}

	next := last
	derrMissing := false
	switch {
	case err != nil && p.declare:
		next = r.failed(last, key, err.Error(), now, false)
		if isDuplicate(err) {
			next.reason = rmqv1.ReasonDuplicateDeclaration
		}
	case verify && inSync:
		// Without drift: reads only, no PUT or POST.
		next = attempt{uid: string(obj.GetUID()), key: key, ok: true, at: now}
	case err == nil && p.declare:
		if derr := r.act.Declare(ctx, obj, desired); derr != nil {
			// A vhost, user, queue or exchange not declared yet is
			// retried promptly at first (retryDelay).
			derrMissing = rabbitmq.IsMissingDependency(derr)
			next = r.failed(last, key, rabbitmq.Message(derr), now, derrMissing)
			next.drift = drift
			logger.Info("declaration failed; retrying with backoff", "error", rabbitmq.Message(derr), "retryIn", next.next.Sub(now).String())
		} else {
			next = attempt{uid: string(obj.GetUID()), key: key, ok: true, at: now}
			if drift != "" {
				r.repaired(ctx, obj, drift)
			} else {
				logger.V(1).Info("declared")
			}
		}
	}
	r.remember(req.NamespacedName, next)

	if firstMissingDependency(before, next, derrMissing) {
		// A dependency declared by another resource at the same time (the
		// queue of a Binding applied with it) is ordering, not a failure
		// to report: the first such attempt of a resource without Ready
		// writes nothing and retries promptly; a second one writes Ready
		// False as any failure does.
		return ctrl.Result{RequeueAfter: r.requeueAfter(next, p, now)}, nil
	}
	if err := r.writeStatus(ctx, before, obj, next); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: r.requeueAfter(next, p, now)}, nil
}

// resolve returns the desired state of obj (actuator.Resolve), the key of
// the attempt (its hash, or the text of the error) and the error: a
// *duplicateError when another resource declares the same broker object
// and is older (duplicates.go).
func (r *reconciler[T]) resolve(ctx context.Context, obj T) (any, string, error) {
	desired, err := r.act.Resolve(ctx, obj)
	var key string
	if err == nil {
		key, err = desiredHash(desired)
	}
	if err == nil {
		err = r.duplicate(ctx, obj)
	}
	if err != nil {
		return nil, "resolve: " + err.Error(), err
	}
	return desired, key, nil
}

// firstMissingDependency reports whether next is the first failed
// declaration of a resource that has no Ready condition yet, failed because
// a dependency is not declared yet (missing).
func firstMissingDependency[T object](before T, next attempt, missing bool) bool {
	return missing && !next.ok && next.failures == 1 && findReady(before.TopologyStatus()) == nil
}

// repaired reports a declaration that repaired drift found in the broker:
// a Normal event naming what was missing or changed, an info log line, and
// one more orderhub_topology_repairs_total for the kind.
func (r *reconciler[T]) repaired(ctx context.Context, obj T, drift string) {
	log.FromContext(ctx).Info("repaired drift in RabbitMQ", "drift", drift)
	r.events.Eventf(obj, nil, corev1.EventTypeNormal, EventReasonDriftRepaired, EventActionRepair,
		"%s", truncate("repaired in RabbitMQ: "+drift, maxMessage))
	repairsTotal.WithLabelValues(r.kind).Inc()
}

// failed records one more consecutive failure of key; missing says the
// broker refused for a missing dependency (retryDelay).
func (r *reconciler[T]) failed(last attempt, key, message string, now time.Time, missing bool) attempt {
	n := 1
	if !last.ok && last.key == key {
		n = last.failures + 1
	}
	return attempt{uid: last.uid, key: key, failures: n, message: message,
		next: now.Add(retryDelay(n, missing, r.opts.BackoffBase, r.opts.BackoffMax, r.opts.DependencyRetry))}
}

// requeueAfter is the next wake-up: the backoff after a failure, the forced
// resync (with up to 10% jitter so resources spread out) after a success.
func (r *reconciler[T]) requeueAfter(a attempt, p plan, now time.Time) time.Duration {
	if !p.declare && p.wait > 0 {
		return p.wait
	}
	if !a.ok {
		if d := a.next.Sub(now); d > 0 {
			return d
		}
		return r.opts.BackoffBase
	}
	return r.opts.ResyncPeriod + time.Duration(rand.Int64N(int64(r.opts.ResyncPeriod)/10+1))
}

// writeStatus patches the status subresource when the Ready condition,
// observedGeneration or a kind-specific field changed, and emits an event
// when Ready changes: a Warning when it turns False or its message changes,
// a Normal one when it turns True again after a failure. The first Ready of
// a resource emits none: it would be one more apiserver write per object
// for what the Ready condition already says (docs/topology.md,
// "Reconciliation").
func (r *reconciler[T]) writeStatus(ctx context.Context, before, obj T, a attempt) error {
	cond := readyCondition(a.ok, a.reason, a.message, obj.GetGeneration())
	prev := findReady(before.TopologyStatus())
	changed := applyStatus(obj.TopologyStatus(), cond, metav1.NewTime(r.now()))
	if !changed && equalStatus(before, obj) {
		return nil
	}
	if err := r.client.Status().Patch(ctx, obj, client.MergeFrom(before)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("writing status: %w", err)
	}
	if prev == nil || prev.Status != cond.Status || prev.Message != cond.Message {
		switch {
		case a.ok && prev == nil:
			// First Ready: the status patch says it.
		case a.ok:
			r.events.Eventf(obj, nil, corev1.EventTypeNormal, rmqv1.ReasonSuccessfulCreateOrUpdate, EventActionDeclare,
				"%s declared in RabbitMQ", r.kind)
		default:
			r.events.Eventf(obj, nil, corev1.EventTypeWarning, cond.Reason, EventActionDeclare,
				"%s", cond.Message)
		}
	}
	return nil
}

// finalize runs when the resource is being deleted: with deletionPolicy
// delete the broker object is deleted first (a 404 counts as deleted), then
// our finalizer is removed. A failed deletion is retried with backoff. A
// broker object another resource still declares is kept (duplicates.go).
func (r *reconciler[T]) finalize(ctx context.Context, obj T) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(obj, rmqv1.Finalizer) {
		return ctrl.Result{}, nil
	}
	key := client.ObjectKeyFromObject(obj)
	deletes := obj.EffectiveDeletionPolicy() == rmqv1.DeletionPolicyDelete
	if deletes {
		kept, err := r.keptForOthers(ctx, obj)
		if err != nil {
			return ctrl.Result{}, err
		}
		deletes = !kept
	}
	if deletes {
		now := r.now()
		last := r.remembered(key, obj.GetUID())
		if p := planDeclare(last, "delete", now, r.opts.ResyncPeriod); !p.declare {
			return ctrl.Result{RequeueAfter: p.wait}, nil
		}
		if err := r.act.Delete(ctx, obj); err != nil {
			a := r.failed(last, "delete", rabbitmq.Message(err), now, false)
			r.remember(key, a)
			log.FromContext(ctx).Info("deletion failed; retrying with backoff", "error", a.message, "retryIn", a.next.Sub(now).String())
			r.events.Eventf(obj, nil, corev1.EventTypeWarning, EventReasonFailedDelete, EventActionDelete, "%s", truncate(a.message, maxMessage))
			return ctrl.Result{RequeueAfter: a.next.Sub(now)}, nil
		}
		r.events.Eventf(obj, nil, corev1.EventTypeNormal, EventReasonSuccessfulDelete, EventActionDelete, "%s deleted from RabbitMQ", r.kind)
	}
	r.forget(key)
	return ctrl.Result{}, r.setFinalizer(ctx, obj, false)
}

// setFinalizer adds or removes our finalizer with a merge patch (which
// carries the resourceVersion, so a concurrent change fails and is retried).
func (r *reconciler[T]) setFinalizer(ctx context.Context, obj T, present bool) error {
	before := obj.DeepCopyObject().(T)
	if present {
		controllerutil.AddFinalizer(obj, rmqv1.Finalizer)
	} else {
		controllerutil.RemoveFinalizer(obj, rmqv1.Finalizer)
	}
	err := r.client.Patch(ctx, obj, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{}))
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// errWaiting marks a missing Kubernetes-side dependency.
var errWaiting = errors.New("waiting")

func waitingf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errWaiting}, args...)...)
}

func isWaiting(err error) bool { return errors.Is(err, errWaiting) }
