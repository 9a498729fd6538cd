package reconcile

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// fixedSchedule: due a period after the success, woken at the same instant.
type fixedSchedule struct{ period time.Duration }

func (s fixedSchedule) Due(at time.Time, _ types.UID) (time.Time, time.Time) {
	return at.Add(s.period), at.Add(s.period)
}
func (s fixedSchedule) After(time.Time, types.UID) time.Duration { return s.period }

func TestDecide(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	sched := fixedSchedule{10 * time.Minute}
	hold := Policy{Schedule: sched, HoldFailures: true}
	ready := Policy{Schedule: sched, RequireReady: true}
	ok := Succeeded(Record{}, "h1", "", now.Add(-time.Minute))
	failedOnce := func(key string, next time.Duration) Record {
		return Failed(ok, key, "boom", now, func(int) time.Duration { return next })
	}
	act, actResync := Plan{Act: true}, Plan{Act: true, Resync: true}
	cases := []struct {
		name   string
		last   Record
		key    string
		ready  bool
		policy Policy
		want   Plan
	}{
		{"first sight acts", Record{}, "h1", false, hold, act},
		{"a new key acts at once", ok, "h2", true, hold, act},
		{"an applied key waits for its resync", ok, "h1", true, hold, Plan{Wait: 9 * time.Minute}},
		{"an applied key acts as a resync when due", Succeeded(Record{}, "h1", "", now.Add(-10*time.Minute)), "h1", true, hold, actResync},
		{"held: a failed key waits for its backoff", failedOnce("h2", 5*time.Second), "h2", false, hold, Plan{Wait: 5 * time.Second}},
		{"held: a failed key acts when its backoff ends", failedOnce("h2", -time.Second), "h2", false, hold, act},
		{"held: a failed key does not block a new one", failedOnce("h2", time.Hour), "h3", false, hold, act},
		{"held: back to the applied key after a failure is a resync", failedOnce("h2", time.Hour), "h1", false, hold, actResync},
		{"held: a failed resync retries as a resync", failedOnce("h1", -time.Second), "h1", false, hold, actResync},
		{"not held: a failed key acts on every pass", failedOnce("h2", time.Hour), "h2", false, ready, act},
		{"not held: a failed resync acts as a resync", failedOnce("h1", time.Hour), "h1", false, ready, actResync},
		{"ready required: not ready acts", ok, "h1", false, ready, actResync},
		{"ready required: ready waits", ok, "h1", true, ready, Plan{Wait: 9 * time.Minute}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := Decide(c.last, c.key, now, c.ready, c.policy); got != c.want {
				t.Fatalf("Decide = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestFailedCountsConsecutiveFailuresOfOneKey(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	double := func(n int) time.Duration { return time.Duration(n) * time.Second }
	ok := Succeeded(Record{UID: "u"}, "h1", "fine", now.Add(-time.Hour))
	f1 := Failed(ok, "h2", "boom", now, double)
	f2 := Failed(f1, "h2", "boom", now, double)
	f3 := Failed(f2, "h3", "other", now, double)
	if f1.Failures != 1 || f2.Failures != 2 || f3.Failures != 1 {
		t.Fatalf("failures = %d, %d, %d; want 1, 2, 1", f1.Failures, f2.Failures, f3.Failures)
	}
	if !f2.Next.Equal(now.Add(2*time.Second)) || f2.UID != "u" || f2.Applied != "h1" || !f2.At.Equal(ok.At) {
		t.Fatalf("second failure = %+v, want next in 2s, the UID and the last success kept", f2)
	}
}
