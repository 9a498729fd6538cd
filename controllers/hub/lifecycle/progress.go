package lifecycle

import (
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Progress is how a pass ends, in the way of K-ORC's
// internal/controllers/generic/progress: waiting on a watch (nothing to
// poll), poll after a delay, or an error (the controller's backoff).
type Progress struct {
	after time.Duration
	// later, when set, gives after once the status is written.
	later func() time.Duration
	err   error
}

// Watch ends a pass that the next watch event resumes.
func Watch() Progress { return Progress{} }

// After ends a pass that looks again after d; d <= 0 is Watch.
func After(d time.Duration) Progress { return Progress{after: d} }

// AfterWrite ends a pass that looks again after f(); Finish asks f after the
// status write, so f MAY read the written status.
func AfterWrite(f func() time.Duration) Progress { return Progress{later: f} }

// Failed ends a pass with err; a nil err is Watch.
func Failed(err error) Progress { return Progress{err: err} }

// Err is the pass's error, nil when none.
func (p Progress) Err() error { return p.err }

// Result is the controller-runtime result of p.
func (p Progress) Result() (reconcile.Result, error) {
	if p.err != nil {
		return reconcile.Result{}, p.err
	}
	d := p.after
	if p.later != nil {
		d = p.later()
	}
	return reconcile.Result{RequeueAfter: max(d, 0)}, nil
}
