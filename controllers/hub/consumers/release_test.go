package consumers

import (
	"slices"
	"testing"
	"time"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestReleaseSuperseded(t *testing.T) {
	t.Parallel()
	const old, want = "KeystoneApplicationCredential/ac=1", "KeystoneApplicationCredential/ac=2"
	bound := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	before, at := bound.Add(-time.Minute), bound
	st := func(name, state, stamp string) c5c3v1alpha1.ConsumerStatus {
		return c5c3v1alpha1.ConsumerStatus{Kind: KindDeployment, Name: name, State: state, Stamp: stamp}
	}
	many := make([]c5c3v1alpha1.ConsumerStatus, c5c3v1alpha1.MaxConsumers)
	for i := range many {
		many[i] = st("w", rolled, want)
	}
	tests := []struct {
		name     string
		statuses []c5c3v1alpha1.ConsumerStatus
		ack      string
		now      time.Time
		revoke   bool
		early    bool
		waiting  []string
	}{
		{"no consumers: the bound as before", nil, "", before, false, false, nil},
		{"no consumers at the bound", nil, "", at, true, false, nil},
		{"all opted in rolled out: early", []c5c3v1alpha1.ConsumerStatus{st("a", rolled, want)}, "", before, true, true, nil},
		{"rolled out on the old stamp waits", []c5c3v1alpha1.ConsumerStatus{st("a", rolled, old)}, "", before, false, false,
			[]string{"Deployment/a"}},
		{"rolling waits", []c5c3v1alpha1.ConsumerStatus{st("a", rolled, want), st("b", rolling, want)}, "", before,
			false, false, []string{"Deployment/b"}},
		{"queued at the bound: revoked, named", []c5c3v1alpha1.ConsumerStatus{st("a", queued, old)}, "", at, true, false,
			[]string{"Deployment/a"}},
		{"a workload without the opt-in keeps the full grace", []c5c3v1alpha1.ConsumerStatus{st("a", rolled, want),
			st("p", optedOut, "")}, "", before, false, false, nil},
		{"the acknowledgement alone releases", nil, want, before, true, true, nil},
		{"an old acknowledgement waits", nil, old, before, false, false, []string{`acknowledgement "` + old + `"`}},
		{"acknowledged, a workload still rolling", []c5c3v1alpha1.ConsumerStatus{st("a", rolling, want)}, want, before,
			false, false, []string{"Deployment/a"}},
		{"a full list may hide more: the bound", many, "", before, false, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := ReleaseSuperseded(Superseded{Statuses: tt.statuses, Want: want, Ack: tt.ack, Now: tt.now, Bound: bound})
			if r.Revoke != tt.revoke || r.Early != tt.early || !slices.Equal(r.Waiting, tt.waiting) {
				t.Fatalf("got %+v, want revoke %v early %v waiting %v", r, tt.revoke, tt.early, tt.waiting)
			}
		})
	}
}
