package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// ForTest starts a stack for one test and stops it in tb.Cleanup; it fails
// the test when a server does not start. Packages that share one stack across
// tests start it in TestMain with Start instead.
func ForTest(tb testing.TB, o Options) *Stack {
	tb.Helper()
	if o.Logf == nil {
		o.Logf = tb.Logf
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	st, err := Start(ctx, o)
	if err != nil {
		tb.Fatalf("start the stack: %v", err)
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			for name, path := range st.Logs() {
				tb.Logf("%s log (last lines of %s):\n%s", name, path, tail(path, 20))
			}
		}
		_ = st.Stop()
	})
	return st
}

// PollInterval is how often Eventually re-checks a condition.
const PollInterval = 250 * time.Millisecond

// Eventually calls cond every PollInterval until it returns nil, and fails the
// test with what and cond's last error once timeout has passed. It is the
// one wait of the integration tests: they wait on conditions, never on sleeps.
func Eventually(tb testing.TB, timeout time.Duration, what string, cond func() error) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s: still not true after %s: %v", what, timeout, err)
		}
		time.Sleep(PollInterval)
	}
}

// RunTests runs a package's tests (m.Run) with mgr started beside them (nil:
// none), stops mgr, and returns the exit code. When a test failed it prints
// each server's log path and last lines, so a failure in CI shows what the
// servers said. It is the body of the integration suites' TestMain.
func (s *Stack) RunTests(m *testing.M, mgr manager.Runnable) int {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	if mgr != nil {
		go func() { done <- mgr.Start(ctx) }()
	}
	code := m.Run()
	if code != 0 {
		for name, path := range s.Logs() {
			fmt.Printf("--- %s log (%s), last lines:\n%s\n", name, path, tail(path, 15))
		}
	}
	if mgr != nil {
		stop()
		if err := <-done; err != nil {
			fmt.Fprintf(os.Stderr, "manager: %v\n", err)
		}
	}
	return code
}

// WaitForReason waits (Eventually, at most timeout) until the condition typ
// of obj, re-read through c, has reason at the object's current generation
// (observedGeneration == generation), and returns the object as then read
// (a copy; obj is not changed). conds returns an object's status
// conditions. It fails tb with the last condition seen.
func WaitForReason[T client.Object](tb testing.TB, c client.Client, timeout time.Duration, obj T,
	conds func(T) []metav1.Condition, typ, reason string) T {
	tb.Helper()
	got, ok := obj.DeepCopyObject().(T)
	if !ok {
		tb.Fatalf("testenv.WaitForReason: %T does not copy to itself", obj)
	}
	Eventually(tb, timeout, fmt.Sprintf("%s %s=%s", obj.GetName(), typ, reason), func() error {
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), got); err != nil {
			return err
		}
		cond := meta.FindStatusCondition(conds(got), typ)
		if cond == nil || cond.Reason != reason || cond.ObservedGeneration != got.GetGeneration() {
			return fmt.Errorf("condition is %+v at generation %d", cond, got.GetGeneration())
		}
		ObservedCondition(tb, got, *cond)
		return nil
	})
	return got
}

// DeleteAndWaitGone deletes obj through c (NotFound is not an error; another
// failure is reported with tb.Error) and waits up to timeout until c no
// longer finds it.
func DeleteAndWaitGone(tb testing.TB, c client.Client, timeout time.Duration, obj client.Object) {
	tb.Helper()
	if err := c.Delete(context.Background(), obj); err != nil && !apierrors.IsNotFound(err) {
		tb.Error(err)
	}
	Eventually(tb, timeout, fmt.Sprintf("%T %s gone", obj, obj.GetName()), func() error {
		err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj.DeepCopyObject().(client.Object))
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return errors.New("still exists")
	})
}
