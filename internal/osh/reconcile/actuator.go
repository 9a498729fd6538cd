// Package reconcile is the one reconcile loop of the OSH controllers
// (identity and topology), in the shape of K-ORC's generic controller
// (github.com/k-orc/openstack-resource-controller
// internal/controllers/generic): a Loop over a per-kind Actuator, one
// applied-hash Memory, one pure plan (Decide), one finalizer rule, one status
// writer, one event policy and one DriftRepaired metric (docs/architecture.md,
// "The OSH controllers' loop").
package reconcile

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Status points into the status of one object: the fields the loop writes.
type Status struct {
	Conditions         *[]metav1.Condition
	ObservedGeneration *int64
}

// Outcome is what a successful Apply reports.
type Outcome struct {
	// Message becomes the Ready condition's message ("" for none).
	Message string
	// Changes lists what was written to the backend, one phrase each; each
	// becomes a Normal event, or a DriftRepaired one when the desired state
	// was applied before (a resync). Empty when nothing was written.
	Changes []string
}

// Actuator is the per-kind part of the loop.
type Actuator[T client.Object] interface {
	// Kind is the Kind name, for logs, events and metric labels.
	Kind() string
	// Serves returns "" when this controller serves obj, else why not. It
	// MUST NOT do I/O.
	Serves(obj T) string
	// WantsFinalizer reports whether obj, served and not being deleted, MUST
	// carry the finalizer (deletionPolicy delete). Pure.
	WantsFinalizer(obj T) bool
	// Status returns pointers into obj's status.
	Status(obj T) Status
	// Resolve reads what obj depends on in Kubernetes (a Secret, a
	// referenced resource) and returns the desired state: a JSON-marshalable
	// value that fully determines what Apply sends; its hash is the key of
	// the Memory. It MAY set kind-specific status fields on obj. It MUST NOT
	// call the backend. An error implementing Refusal reverts those fields.
	Resolve(ctx context.Context, obj T) (desired any, err error)
	// Apply makes the backend match desired. It MUST be idempotent. resync
	// is true when desired was applied successfully before: what Apply
	// writes then repairs drift. An error implementing Missing reports a
	// dependency absent from the backend.
	Apply(ctx context.Context, obj T, desired any, resync bool) (Outcome, error)
	// Keep reports, for obj being deleted with our finalizer, whether its
	// backend object stays (deletionPolicy retain, or declared by another
	// resource); it MAY emit an event saying why.
	Keep(ctx context.Context, obj T) (bool, error)
	// Delete removes obj's backend object. An object already gone MUST count
	// as success.
	Delete(ctx context.Context, obj T) error
	// RetryAfter is the wait after the failures-th consecutive failure
	// (failures ≥ 1); missing says the backend lacked a dependency.
	RetryAfter(obj T, failures int, missing bool) time.Duration
}

// Drifter is an optional Actuator hook: it reads the backend and says what
// differs from desired, so a resync writes only on drift.
type Drifter[T client.Object] interface {
	// Drift returns inSync true only when it could compare and found
	// nothing; drift names what differs ("" when it cannot tell).
	Drift(ctx context.Context, obj T, desired any) (inSync bool, drift string)
}

// Waiter is an optional Actuator hook: a resource that waits, without a
// request or a status write, for another resource before Resolve.
type Waiter[T client.Object] interface {
	// Wait returns how long to wait before the next pass, and whether to
	// wait at all. It MUST read the cache only.
	Wait(ctx context.Context, obj T, now time.Time) (time.Duration, bool)
}

// Observer is an optional Actuator hook called after every reported
// pass: err is the pass's failure (nil on success), changed whether it
// wrote to the backend.
type Observer[T client.Object] interface {
	Observed(obj T, changed bool, err error)
}

// Forgetter is an optional Actuator hook called when a resource is gone.
type Forgetter interface {
	Forget(key types.NamespacedName)
}

// Missing is implemented by errors that report a dependency absent from
// the backend.
type Missing interface{ Missing() bool }

// Refusal is implemented by Resolve errors that refuse the resource (another
// resource declares the same object): Reason is the Ready reason, and the
// status fields Resolve set are reverted.
type Refusal interface{ Reason() string }
