package testenv

import (
	"context"
	"testing"
	"time"
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
