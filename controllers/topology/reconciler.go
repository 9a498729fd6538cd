package topology

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/osh/reconcile"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// object is what the generic loop needs of each kind.
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

// brokerKind is what every kind's actuator implements (setup takes one):
// the requests, the broker object it declares (declares.go) and the drift
// check of a forced resync (drift.go). Test actuators implement actuator
// alone.
type brokerKind[T object] interface {
	actuator[T]
	declarer[T]
	drifter[T]
}

// dependent is implemented by an actuator whose resources wait for other
// resources of this controller before their first declaration (Binding:
// dependency.go).
type dependent[T object] interface {
	// Pending names the resource obj waits for ("" for none), reading the
	// cache only. Errors: a failed cache read.
	Pending(ctx context.Context, obj T) (string, error)
}

// kindActuator adapts one kind's actuator to reconcile.Actuator: the
// serving rule, the several-declarations rule, drift observation, the
// dependency wait and the backoff of the topology controller.
type kindActuator[T object] struct {
	kind    string
	client  client.Client
	newList func() client.ObjectList
	act     actuator[T]
	opts    *Options
	events  events.EventRecorder
}

// newLoop is the reconcile loop of one kind.
func newLoop[T object](k *kindActuator[T], c *Controllers, newObj func() T, now func() time.Time) *reconcile.Loop[T] {
	return &reconcile.Loop[T]{
		Controller: "topology", Backend: "RabbitMQ", Client: k.client, Act: k, New: newObj, Finalizer: rmqv1.Finalizer,
		Memory: reconcile.NewMemory(), Now: now, Skipped: c.skipped, QuietFirstMissing: true,
		Policy:  reconcile.Policy{Schedule: resyncSchedule{k.opts.ResyncPeriod}, HoldFailures: true},
		Reasons: reconcile.Reasons{OK: rmqv1.ReasonSuccessfulCreateOrUpdate, Failed: rmqv1.ReasonFailedCreateOrUpdate},
		Events: reconcile.Events{Recorder: k.events, Action: EventActionDeclare, ReadyNote: "%s declared in RabbitMQ",
			QuietFirstReady: true, RepairPrefix: "repaired in RabbitMQ: ", DeletedReason: EventReasonSuccessfulDelete,
			DeletedNote: "%s deleted from RabbitMQ", FailedDeleteReason: EventReasonFailedDelete},
		Repairs: repairsTotal,
	}
}

func (k *kindActuator[T]) Kind() string { return k.kind }

func (k *kindActuator[T]) Serves(obj T) string {
	return ownership(obj.ClusterReference(), obj.GetNamespace(), k.opts.ClusterName, k.opts.Namespace)
}

// WantsFinalizer: only deletionPolicy delete holds a finalizer
// (docs/topology.md, "Compatibility with the upstream operator").
func (k *kindActuator[T]) WantsFinalizer(obj T) bool {
	return obj.EffectiveDeletionPolicy() == rmqv1.DeletionPolicyDelete
}

func (k *kindActuator[T]) Status(obj T) reconcile.Status {
	st := obj.TopologyStatus()
	return reconcile.Status{Conditions: &st.Conditions, ObservedGeneration: &st.ObservedGeneration}
}

// Resolve is the kind's Resolve, then the several-declarations rule: a
// *duplicateError when an older resource declares the same broker object
// (duplicates.go).
func (k *kindActuator[T]) Resolve(ctx context.Context, obj T) (any, error) {
	desired, err := k.act.Resolve(ctx, obj)
	if err == nil {
		err = k.duplicate(ctx, obj)
	}
	return desired, err
}

// Apply declares; a broker refusal's text (rabbitmq.Message) reaches Ready.
func (k *kindActuator[T]) Apply(ctx context.Context, obj T, desired any, _ bool) (reconcile.Outcome, error) {
	if err := k.act.Declare(ctx, obj, desired); err != nil {
		return reconcile.Outcome{}, &brokerError{msg: rabbitmq.Message(err), missing: rabbitmq.IsMissingDependency(err)}
	}
	log.FromContext(ctx).V(1).Info("declared")
	return reconcile.Outcome{}, nil
}

// Keep: deletionPolicy retain, or another resource declares the object.
func (k *kindActuator[T]) Keep(ctx context.Context, obj T) (bool, error) {
	if obj.EffectiveDeletionPolicy() != rmqv1.DeletionPolicyDelete {
		return true, nil
	}
	return k.keptForOthers(ctx, obj)
}

func (k *kindActuator[T]) Delete(ctx context.Context, obj T) error {
	if err := k.act.Delete(ctx, obj); err != nil {
		return errors.New(rabbitmq.Message(err))
	}
	return nil
}

func (k *kindActuator[T]) RetryAfter(_ T, n int, missing bool) time.Duration {
	return retryDelay(n, missing, k.opts.BackoffBase, k.opts.BackoffMax, k.opts.DependencyRetry)
}

// Drift asks the kind's drifter what differs in the broker (drift.go).
func (k *kindActuator[T]) Drift(ctx context.Context, obj T, desired any) (bool, string) {
	return observeDrift(ctx, k.act, obj, desired)
}

// Wait holds a resource never declared while a resource it depends on has
// not reported (dependency.go), at most DependencyWait.
func (k *kindActuator[T]) Wait(ctx context.Context, obj T, now time.Time) (time.Duration, bool) {
	d, ok := k.act.(dependent[T])
	if !ok || findReady(obj.TopologyStatus()) != nil {
		return 0, false
	}
	logger := log.FromContext(ctx)
	pending, err := d.Pending(ctx, obj)
	if err != nil {
		// Declare as before the wait existed: the broker's 404 and
		// the dependency retry order it then.
		logger.V(1).Info("dependency check failed; declaring without it", "error", err.Error())
		pending = ""
	}
	left, wait := waitsForDependency(obj.GetCreationTimestamp().Time, pending, now, k.opts.DependencyWait)
	if !wait {
		return 0, false
	}
	logger.V(1).Info("waiting for a dependency to be declared", "dependency", pending, "atMost", left.String())
	dependencyWaitsTotal.WithLabelValues(k.kind).Inc()
	return min(left, k.opts.DependencyRetry), true
}

// brokerError is a refused declaration: the broker's message, and whether
// it named a missing dependency (retried promptly at first: retryDelay).
type brokerError struct {
	msg     string
	missing bool
}

func (e *brokerError) Error() string { return e.msg }
func (e *brokerError) Missing() bool { return e.missing }

// Reason makes a duplicate a refusal (reconcile.Refusal): Ready says
// DuplicateDeclaration and what Resolve recorded is dropped.
func (*duplicateError) Reason() string { return rmqv1.ReasonDuplicateDeclaration }

// resyncSchedule: a declared resource is declared again a period after its
// last success; a wake-up a little early (the jitter) counts as due.
type resyncSchedule struct{ period time.Duration }

func (s resyncSchedule) Due(at time.Time, _ types.UID) (time.Time, time.Time) {
	return at.Add(s.period - s.period/20), at.Add(s.period)
}

// After is the period with up to 10% jitter, so resources spread out.
func (s resyncSchedule) After(time.Time, types.UID) time.Duration {
	return s.period + time.Duration(rand.Int64N(int64(s.period)/10+1))
}

// errWaiting marks a missing Kubernetes-side dependency.
var errWaiting = errors.New("waiting")

func waitingf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errWaiting}, args...)...)
}

func isWaiting(err error) bool { return errors.Is(err, errWaiting) }
