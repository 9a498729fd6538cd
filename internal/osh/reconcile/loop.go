package reconcile

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// EventReasonDriftRepaired (Normal): a resync found the backend object
// missing or changed and wrote it again; the note names what.
const EventReasonDriftRepaired = "DriftRepaired"

// Events is the event policy of one controller.
type Events struct {
	Recorder events.EventRecorder
	// Action of the Ready events ("Reconcile", "Declare").
	Action string
	// ReadyNote is the note of a Normal Ready event, formatted with the
	// kind; "" uses the condition's message.
	ReadyNote string
	// QuietFirstReady: a first Ready=True emits no event, even when the
	// pass reported no write.
	QuietFirstReady bool
	// ChangeReason is the reason of the Normal event of each reported write.
	ChangeReason string
	// RepairPrefix starts the note of a DriftRepaired event.
	RepairPrefix string
	// DeletedReason and DeletedNote (formatted with the kind): the event of
	// a deleted backend object.
	DeletedReason, DeletedNote string
	// FailedDeleteReason is the Warning event of a failed deletion; ""
	// writes Ready=False instead.
	FailedDeleteReason string
}

// Loop is the one reconcile loop, instantiated once per kind.
type Loop[T client.Object] struct {
	// Controller labels DriftRepaired ("identity", "topology"); Backend
	// names what it talks to in log lines ("Keystone", "RabbitMQ").
	Controller, Backend string
	Client              client.Client
	// Live, when set, re-reads a resource being deleted from the API
	// server, so the deletionPolicy in force decides.
	Live      client.Reader
	Act       Actuator[T]
	New       func() T
	Finalizer string
	Memory    *Memory
	Policy    Policy
	Reasons   Reasons
	Events    Events
	// QuietFirstMissing: the first failure of a resource without Ready, for
	// a missing dependency, writes nothing and retries (ordering, not a
	// failure to report).
	QuietFirstMissing bool
	// Repairs, when set, is counted besides DriftRepaired (by kind).
	Repairs *prometheus.CounterVec
	// Skipped, when set, records the UIDs of resources not served whose
	// skip was logged (once each).
	Skipped *sync.Map
	Now     func() time.Time
}

// Reconcile runs one pass: get; not served: drop our finalizer, no status;
// deleting: finalize; else the finalizer rule, the Waiter hook, and act.
func (l *Loop[T]) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := l.New()
	if err := l.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			l.Memory.Forget(req.NamespacedName)
			if f, ok := l.Act.(Forgetter); ok {
				f.Forget(req.NamespacedName)
			}
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if why := l.Act.Serves(obj); why != "" {
		l.Memory.Forget(req.NamespacedName)
		if l.Skipped != nil {
			if _, logged := l.Skipped.LoadOrStore(obj.GetUID(), struct{}{}); !logged {
				log.FromContext(ctx).Info("not serving this resource: nothing is declared and no status is written", "reason", why)
			}
		}
		return ctrl.Result{}, SetFinalizer(ctx, l.Client, obj, l.Finalizer, false)
	}
	if l.Skipped != nil {
		l.Skipped.Delete(obj.GetUID())
	}
	if !obj.GetDeletionTimestamp().IsZero() {
		return l.finalize(ctx, obj)
	}
	if err := SetFinalizer(ctx, l.Client, obj, l.Finalizer, l.Act.WantsFinalizer(obj)); err != nil {
		return ctrl.Result{}, err
	}
	if w, ok := l.Act.(Waiter[T]); ok {
		if d, wait := w.Wait(ctx, obj, l.Now()); wait {
			return ctrl.Result{RequeueAfter: d}, nil
		}
	}
	return l.act(ctx, obj)
}

// act resolves, plans (Decide), observes drift on a resync, applies, and
// reports the pass.
func (l *Loop[T]) act(ctx context.Context, obj T) (ctrl.Result, error) {
	key, now := client.ObjectKeyFromObject(obj), l.Now()
	before := obj.DeepCopyObject().(T)
	last := l.Memory.Get(key, obj.GetUID())
	desired, hash, err := l.resolve(ctx, obj)
	var refusal Refusal
	if errors.As(err, &refusal) {
		obj = before.DeepCopyObject().(T)
	}
	p := Decide(last, hash, now, ReadyAt(l.Act.Status(obj), obj.GetGeneration()), l.Policy)
	if !p.Act {
		return l.report(ctx, before, obj, last, p.Wait)
	}
	if err != nil {
		next := Failed(last, hash, err.Error(), now, l.retry(obj, false))
		if refusal != nil {
			next.Reason = refusal.Reason()
		}
		return l.done(ctx, before, obj, next, Outcome{}, err)
	}
	inSync, drift := l.observe(ctx, obj, desired, last, hash)
	if inSync {
		return l.done(ctx, before, obj, Succeeded(last, hash, last.Message, now), Outcome{}, nil)
	}
	out, err := l.Act.Apply(ctx, obj, desired, p.Resync)
	if err != nil {
		l.announce(ctx, obj, out, p.Resync, "")
		next := Failed(last, hash, err.Error(), now, l.retry(obj, isMissing(err)))
		next.Drift = drift
		return l.done(ctx, before, obj, next, out, err)
	}
	l.announce(ctx, obj, out, p.Resync, drift)
	return l.done(ctx, before, obj, Succeeded(last, hash, out.Message, now), out, nil)
}

// resolve returns the desired state, its hash (or "resolve: " and the
// error's text) and Resolve's error.
func (l *Loop[T]) resolve(ctx context.Context, obj T) (any, string, error) {
	desired, err := l.Act.Resolve(ctx, obj)
	var hash string
	if err == nil {
		hash, err = Hash(desired)
	}
	if err != nil {
		return nil, "resolve: " + err.Error(), err
	}
	return desired, hash, nil
}

// observe asks the Drifter, on a resync or on first sight of a resource
// already Ready (a restart), whether the backend still holds desired; a
// failed repair's drift is carried to its retry.
func (l *Loop[T]) observe(ctx context.Context, obj T, desired any, last Record, hash string) (bool, string) {
	d, ok := l.Act.(Drifter[T])
	if !ok {
		return false, ""
	}
	if last.OK && last.Key == hash || last.Key == "" && ReadyAt(l.Act.Status(obj), obj.GetGeneration()) {
		return d.Drift(ctx, obj, desired)
	}
	if !last.OK && last.Key == hash {
		return false, last.Drift
	}
	return false, ""
}

func (l *Loop[T]) retry(obj T, missing bool) func(int) time.Duration {
	return func(n int) time.Duration { return l.Act.RetryAfter(obj, n, missing) }
}

func isMissing(err error) bool {
	var m Missing
	return errors.As(err, &m) && m.Missing()
}

// announce emits the events, log lines and metrics of a successful apply:
// a write to a desired state applied before, or one that follows observed
// drift, is a repair (DriftRepaired); any other write a Normal event.
func (l *Loop[T]) announce(ctx context.Context, obj T, out Outcome, resync bool, drift string) {
	var repairs []string
	if drift != "" {
		repairs = append(repairs, drift)
	}
	for _, ch := range out.Changes {
		if resync {
			repairs = append(repairs, ch)
			continue
		}
		l.Events.Recorder.Eventf(obj, nil, corev1.EventTypeNormal, l.Events.ChangeReason, "Apply", "%s", ch)
	}
	kind := l.Act.Kind()
	for _, r := range repairs {
		log.FromContext(ctx).Info("repaired drift in "+l.Backend, "kind", kind, "change", r)
		DriftRepaired.WithLabelValues(l.Controller, kind).Inc()
		if l.Repairs != nil {
			l.Repairs.WithLabelValues(kind).Inc()
		}
		l.Events.Recorder.Eventf(obj, nil, corev1.EventTypeNormal, EventReasonDriftRepaired, "Repair", "%s", Truncate(l.Events.RepairPrefix+r))
	}
}

// done remembers next and reports the pass.
func (l *Loop[T]) done(ctx context.Context, before, obj T, next Record, out Outcome, err error) (ctrl.Result, error) {
	l.Memory.Set(client.ObjectKeyFromObject(obj), next)
	if o, ok := l.Act.(Observer[T]); ok {
		o.Observed(obj, len(out.Changes) > 0, err)
	}
	now := l.Now()
	wait := l.Policy.Schedule.After(now, obj.GetUID())
	if !next.OK {
		log.FromContext(ctx).Info("reconcile failed; retrying", "error", next.Message, "retryIn", next.Next.Sub(now).String(),
			"failures", next.Failures, "backoff", next.Wait.String())
		wait = next.Next.Sub(now)
		if wait <= 0 {
			wait = l.Act.RetryAfter(obj, 1, false)
		}
		if l.QuietFirstMissing && isMissing(err) && next.Failures == 1 &&
			meta.FindStatusCondition(*l.Act.Status(before).Conditions, ConditionReady) == nil {
			return ctrl.Result{RequeueAfter: wait}, nil
		}
	}
	if err := l.writeStatus(ctx, before, obj, next, len(out.Changes) > 0); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: wait}, nil
}

// report writes the status of a pass that did not act, and requeues.
func (l *Loop[T]) report(ctx context.Context, before, obj T, last Record, wait time.Duration) (ctrl.Result, error) {
	if err := l.writeStatus(ctx, before, obj, last, false); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: wait}, nil
}

// writeStatus is the one status writer: the Ready condition of rec and
// the kind's fields, written when they changed, then the Ready event
// (ReadyEvent); reported says the pass emitted its writes already.
func (l *Loop[T]) writeStatus(ctx context.Context, before, obj T, rec Record, reported bool) error {
	prev := meta.FindStatusCondition(*l.Act.Status(before).Conditions, ConditionReady)
	c := l.Reasons.Condition(rec, obj.GetGeneration())
	l.Reasons.Stamp(l.Act.Status(obj), c, metav1.NewTime(l.Now()))
	wrote, err := patchStatus(ctx, l.Client, before, obj)
	if err != nil || !wrote {
		return err
	}
	typ, emit := ReadyEvent(prev, c, reported || l.Events.QuietFirstReady)
	if !emit {
		return nil
	}
	note := c.Message
	if c.Status == metav1.ConditionTrue && l.Events.ReadyNote != "" {
		note = fmt.Sprintf(l.Events.ReadyNote, l.Act.Kind())
	}
	l.Events.Recorder.Eventf(obj, nil, typ, c.Reason, l.Events.Action, "%s", note)
	return nil
}

// finalize runs for a resource being deleted that carries our finalizer:
// unless Keep, the backend object is deleted (failures retried per
// Policy), then the finalizer goes.
func (l *Loop[T]) finalize(ctx context.Context, obj T) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(obj, l.Finalizer) {
		return ctrl.Result{}, nil
	}
	key := client.ObjectKeyFromObject(obj)
	if l.Live != nil {
		live := l.New()
		if err := l.Live.Get(ctx, key, live); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		obj = live
	}
	kept, err := l.Act.Keep(ctx, obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !kept {
		if res, err, failed := l.delete(ctx, obj); failed {
			return res, err
		}
	}
	l.Memory.Forget(key)
	return ctrl.Result{}, SetFinalizer(ctx, l.Client, obj, l.Finalizer, false)
}

// delete deletes the backend object; failed is true when the caller
// returns res and err instead of dropping the finalizer.
func (l *Loop[T]) delete(ctx context.Context, obj T) (res ctrl.Result, err error, failed bool) {
	key, now := client.ObjectKeyFromObject(obj), l.Now()
	last := l.Memory.Get(key, obj.GetUID())
	if p := Decide(last, "delete", now, false, l.Policy); !p.Act {
		return ctrl.Result{RequeueAfter: p.Wait}, nil, true
	}
	if derr := l.Act.Delete(ctx, obj); derr != nil {
		next := Failed(last, "delete", derr.Error(), now, l.retry(obj, false))
		if l.Events.FailedDeleteReason == "" {
			res, err = l.done(ctx, obj.DeepCopyObject().(T), obj, next, Outcome{}, derr)
			return res, err, true
		}
		l.Memory.Set(key, next)
		log.FromContext(ctx).Info("deletion failed; retrying with backoff", "error", next.Message, "retryIn", next.Next.Sub(now).String())
		l.Events.Recorder.Eventf(obj, nil, corev1.EventTypeWarning, l.Events.FailedDeleteReason, "Delete", "%s", Truncate(next.Message))
		return ctrl.Result{RequeueAfter: next.Next.Sub(now)}, nil, true
	}
	l.Events.Recorder.Eventf(obj, nil, corev1.EventTypeNormal, l.Events.DeletedReason, "Delete", l.Events.DeletedNote, l.Act.Kind())
	return ctrl.Result{}, nil, false
}
