package orders

import (
	"testing"
	"time"
)

func TestDecideTeardown(t *testing.T) {
	t.Parallel()
	held := Held{"cred"}
	tests := []struct {
		name   string
		fin    bool
		held   Held
		plane  bool
		left   int
		failed bool
		want   TeardownStep
	}{
		{"no finalizer", false, held, true, 3, false, TeardownNone},
		{"held", true, held, true, 3, false, TeardownHold},
		{"held without plane", true, held, false, 3, false, TeardownHold},
		{"plane gone releases with children and failures", true, nil, false, 3, true, TeardownRelease},
		{"children listed", true, nil, true, 1, false, TeardownWait},
		{"a step failed", true, nil, true, 0, true, TeardownWait},
		{"done", true, nil, true, 0, false, TeardownRelease},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DecideTeardown(tc.fin, tc.held, tc.plane, tc.left, tc.failed); got != tc.want {
				t.Errorf("DecideTeardown = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestRequeueAfterAndCapTarget(t *testing.T) {
	t.Parallel()
	const resync, notReady = 1 * time.Hour, 30 * time.Second
	tests := []struct {
		name            string
		ready, onTarget bool
		want            time.Duration
	}{
		{"ready", true, false, resync},
		{"not ready", false, false, notReady},
		{"ready on a target cluster is capped", true, true, RequeueTarget},
		{"not ready on a target cluster keeps the shorter delay", false, true, notReady},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := RequeueAfter(tc.ready, tc.onTarget, resync, notReady); got != tc.want {
				t.Errorf("RequeueAfter = %s, want %s", got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		d        time.Duration
		onTarget bool
		want     time.Duration
	}{
		{0, false, 0},
		{0, true, RequeueTarget},
		{time.Minute, true, time.Minute},
		{2 * RequeueTarget, true, RequeueTarget},
		{2 * RequeueTarget, false, 2 * RequeueTarget},
	} {
		if got := CapTarget(tc.d, tc.onTarget); got != tc.want {
			t.Errorf("CapTarget(%s, %v) = %s, want %s", tc.d, tc.onTarget, got, tc.want)
		}
	}
}
