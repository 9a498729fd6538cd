package consumers

import (
	"reflect"
	"strings"
	"testing"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

const (
	rolled   = c5c3v1alpha1.ConsumerRolledOut
	rolling  = c5c3v1alpha1.ConsumerRollingOut
	queued   = c5c3v1alpha1.ConsumerQueued
	optedOut = c5c3v1alpha1.ConsumerNotOptedIn
)

func TestDecide(t *testing.T) {
	t.Parallel()
	const old, want = "KeystoneApplicationCredential/ac=1", "KeystoneApplicationCredential/ac=2"
	dep := func(name string, in bool, stamp string, done bool) Workload {
		return Workload{Kind: KindDeployment, Name: name, OptedIn: in, Stamp: stamp, RolledOut: done}
	}
	tests := []struct {
		name   string
		in     []Workload
		stamp  string // "Kind/name" or ""
		states []string
	}{
		{"no consumers", nil, "", nil},
		{"first opted-in by name is stamped", []Workload{dep("b", true, old, true), dep("a", true, old, true)},
			"Deployment/a", []string{rolling, queued}},
		{"not opted in is never stamped", []Workload{dep("a", false, "", true)}, "", []string{optedOut}},
		{"a rolling workload holds the next", []Workload{dep("a", true, want, false), dep("b", true, old, true)},
			"", []string{rolling, queued}},
		{"an older stamp still rolling is stamped again and holds the next", []Workload{dep("a", true, old, false), dep("b", true, "", true)},
			"Deployment/a", []string{rolling, queued}},
		{"the current stamp rolling holds an older one rolling", []Workload{dep("a", true, old, false), dep("b", true, want, false)},
			"", []string{queued, rolling}},
		{"of two older stamps rolling the first is stamped again", []Workload{dep("b", true, old, false), dep("a", true, old, false)},
			"Deployment/a", []string{rolling, queued}},
		{"the previous rolled out: the next is stamped", []Workload{dep("a", true, want, true), dep("b", true, old, true)},
			"Deployment/b", []string{rolled, rolling}},
		{"at rest: nothing is stamped", []Workload{dep("a", true, want, true), dep("b", false, "", false)},
			"", []string{rolled, optedOut}},
		{"an unstamped workload never rolled out does not hold", []Workload{dep("a", true, "", false), dep("b", false, "", false)},
			"Deployment/a", []string{rolling, optedOut}},
		{"a not opted-in rolling workload does not hold", []Workload{dep("a", false, old, false), dep("b", true, old, true)},
			"Deployment/b", []string{optedOut, rolling}},
		{"kinds order before names", []Workload{{Kind: KindStatefulSet, Name: "a", OptedIn: true}, {Kind: KindDaemonSet, Name: "z", OptedIn: true}},
			"DaemonSet/z", []string{rolling, queued}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := Decide(tc.in, want)
			got := ""
			if p.Stamp >= 0 {
				got = p.Workloads[p.Stamp].Kind + "/" + p.Workloads[p.Stamp].Name
			}
			if got != tc.stamp {
				t.Errorf("stamped %q, want %q", got, tc.stamp)
			}
			var states []string
			for _, s := range p.Statuses {
				states = append(states, s.State)
			}
			if !reflect.DeepEqual(states, tc.states) {
				t.Errorf("states %v, want %v", states, tc.states)
			}
			if p.Stamp >= 0 && p.Statuses[p.Stamp].Stamp != want {
				t.Errorf("the stamped workload's status carries %q", p.Statuses[p.Stamp].Stamp)
			}
		})
	}
}

func TestStampKey(t *testing.T) {
	t.Parallel()
	if got := StampKey("reports-credentials"); got != "credentials.c5c3.io/reports-credentials" {
		t.Errorf("StampKey = %q", got)
	}
	long1, long2 := strings.Repeat("a", 70)+"-credentials", strings.Repeat("a", 71)+"-credentials"
	k1, k2 := StampKey(long1), StampKey(long2)
	name := strings.TrimPrefix(k1, c5c3v1alpha1.AnnotationCredentialPrefix)
	if len(name) != maxNamePart || k1 == k2 {
		t.Errorf("long names: %q (%d characters), %q", k1, len(name), k2)
	}
	if StampValue("KeystoneUser", "u", 3) != "KeystoneUser/u=3" {
		t.Errorf("StampValue = %q", StampValue("KeystoneUser", "u", 3))
	}
}

func TestOptedIn(t *testing.T) {
	t.Parallel()
	on := map[string]string{c5c3v1alpha1.AnnotationRolloutOnCredentialChange: "true"}
	off := map[string]string{c5c3v1alpha1.AnnotationRolloutOnCredentialChange: "false"}
	tests := []struct {
		name          string
		workload, nsA map[string]string
		want          bool
	}{
		{"neither", nil, nil, false},
		{"workload", on, nil, true},
		{"namespace", nil, on, true},
		{"workload opts out of its namespace", off, on, false},
		{"other value is not true", map[string]string{c5c3v1alpha1.AnnotationRolloutOnCredentialChange: "yes"}, nil, false},
	}
	for _, tc := range tests {
		if got := OptedIn(tc.workload, tc.nsA); got != tc.want {
			t.Errorf("%s: OptedIn = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestShown: status.consumers echoes only stamps of StampValue's shape.
func TestShown(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                                 "",
		StampValue("KeystoneUser", "u", 3): "KeystoneUser/u=3",
		"KeystoneUser/u=3" + string(make([]byte, 300)): ForeignStamp,
		"junk":             ForeignStamp,
		"KeystoneUser/U=3": ForeignStamp,
	} {
		if got := Shown(in); got != want {
			t.Errorf("Shown(%.20q) = %q, want %q", in, got, want)
		}
	}
}
