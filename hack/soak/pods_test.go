package main

import (
	"strings"
	"testing"
	"time"

	"github.com/c5c3/orderhub/internal/testenv/consumerpods"
)

// A password pod's rejections: superseded while the Secret carries another
// password than the pod loaded; the pod's own (current) password counts
// outside the window only where inWindow says so, and always for a password
// that does not rotate; before the first read the pod's password is taken
// for the current one.
func TestPasswordRejections(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	// The Secret carries A from 10 s, B from 70 s.
	carried := func(t time.Time) string {
		switch {
		case t.Before(at(10)):
			return ""
		case t.Before(at(70)):
			return "password:a"
		}
		return "password:b"
	}
	// The window runs from 65 s to 75 s.
	window := func(t time.Time) bool { return !t.Before(at(65)) && !t.After(at(75)) }
	pod := consumerpods.Pod{Credential: "password:a", RejectedAt: []time.Time{at(5), at(30), at(66), at(72), at(90)}}
	for _, c := range []struct {
		rotates             bool
		superseded, outside int
	}{{true, 2, 2}, {false, 2, 3}} {
		sup, out := passwordRejections(pod, c.rotates, carried, window)
		if sup != c.superseded || out != c.outside {
			t.Errorf("rotates %v: superseded %d, outside %d; want %d, %d", c.rotates, sup, out, c.superseded, c.outside)
		}
	}
}

// A rejected application-credential pod and a password pod rejected with
// the current password outside the window are problems; superseded and
// unreachable ones are not.
func TestProblems_Pods(t *testing.T) {
	r := &Report{Pods: []PodReport{
		{Workload: "tenant-a/ac", Kind: credApplication, Rejected: 1},
		{Workload: "openstack/svc", Kind: credPassword, Rotates: true, Rejected: 9, Superseded: 7, OutsideWindow: 1},
		{Workload: "tenant-a/ac2", Kind: credApplication, Unreachable: 5},
		{Workload: "openstack/svc2", Kind: credPassword, Rotates: true, Rejected: 7, Superseded: 7, Unreachable: 3},
	}}
	got := r.Problems()
	if len(got) != 2 || !strings.Contains(got[0], "tenant-a/ac:") || !strings.Contains(got[1], "openstack/svc:") {
		t.Fatalf("problems %q", got)
	}
}
