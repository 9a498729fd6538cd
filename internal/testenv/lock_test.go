package testenv

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"testing"
	"time"
)

// A lock whose listener the caller dropped stays held: before heldLocks,
// the garbage collector's finalizer closed it, and another stack's reaper
// undid the live node of a process that only waited (TestNode_KilledRunIsUndone's
// child, whose pod then stayed Pending).
func TestLockOutlivesItsLastReference(t *testing.T) {
	name := fmt.Sprintf("@orderhub-test-lock-%d", os.Getpid())
	// Only heldLocks references the listener once this returns.
	addr := func() string {
		l, err := takeLock(name)
		if err != nil {
			t.Fatal(err)
		}
		return l.Addr().String()
	}()
	// Two collections, each followed by a finalizer of our own: finalizers
	// run one at a time in queue order, so once the second one ran, any
	// finalizer queued by the first collection has run too.
	for range 2 {
		collectAndFinalize(t)
	}
	if other, err := net.Listen("unix", name); err == nil {
		_ = other.Close()
		t.Fatal("the lock was released once its listener was unreferenced")
	}
	heldLocks.Range(func(k, _ any) bool {
		if k.(net.Listener).Addr().String() == addr {
			if err := releaseLock(k.(net.Listener)); err != nil {
				t.Error(err)
			}
		}
		return true
	})
	if other, err := net.Listen("unix", name); err != nil {
		t.Fatalf("after releaseLock the lock is still held: %v", err)
	} else {
		_ = other.Close()
	}
}

// collectAndFinalize runs a garbage collection until a finalizer of its own
// has run (an object of 64 bytes: the tiny allocator batches smaller ones,
// whose finalizers may never run). Errors: none within 10 s.
func collectAndFinalize(t *testing.T) {
	t.Helper()
	done := make(chan struct{})
	func() {
		sentinel := &[8]*int{}
		runtime.SetFinalizer(sentinel, func(*[8]*int) { close(done) })
	}()
	deadline := time.After(10 * time.Second)
	for {
		runtime.GC()
		select {
		case <-done:
			return
		case <-deadline:
			t.Fatal("no finalizer ran within 10 s of collections")
		case <-time.After(10 * time.Millisecond):
		}
	}
}
