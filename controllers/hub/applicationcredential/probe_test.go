package applicationcredential

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/korc"
)

func TestProbeDue(t *testing.T) {
	t.Parallel()
	now := t0.Add(100 * time.Hour)
	every := 10 * time.Minute
	tests := []struct {
		name string
		in   func() Input
		last time.Time
		want bool
	}{
		{"converged, last probe a resync ago", func() Input { return steady(now) }, now.Add(-every), true},
		{"converged, probed recently", func() Input { return steady(now) }, now.Add(-every + time.Second), false},
		{"first sight only starts the clock", func() Input { return steady(now) }, time.Time{}, false},
		{"not delivered yet", func() Input { in := steady(now); in.Delivered = false; return in }, now.Add(-time.Hour), false},
		{"frozen", func() Input {
			in := steady(now)
			in.Gate = conditions.Gate{Reason: c5c3v1alpha1.ReasonNamespaceNotAssigned}
			return in
		}, now.Add(-time.Hour), false},
		{"refused", func() Input {
			in := steady(now)
			in.Refusal = conditions.Gate{Reason: c5c3v1alpha1.ReasonNoRoleOnProject}
			return in
		}, now.Add(-time.Hour), false},
		{"grace period runs", func() Input { return inGrace(t0.Add(730 * time.Hour)) }, now.Add(-time.Hour), false},
		{"successor under way", func() Input {
			in := steady(now)
			in.Credentials = append(in.Credentials, cred(2, korc.PhaseProgressing))
			return in
		}, now.Add(-time.Hour), false},
		{"expired", func() Input { return steady(t0.Add(744 * time.Hour)) }, t0.Add(700 * time.Hour), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := ProbeDue(tc.in(), tc.last, every); got != tc.want {
				t.Errorf("ProbeDue = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRejectedByKeystone(t *testing.T) {
	t.Parallel()
	code := func(c int) error {
		return fmt.Errorf("authenticate: %w", gophercloud.ErrUnexpectedResponseCode{Actual: c, Expected: []int{201}})
	}
	for _, tc := range []struct {
		err  error
		want bool
	}{{nil, false}, {code(401), true}, {code(404), true}, {code(500), false}, {code(403), false}, {errors.New("connection refused"), false}} {
		if got := RejectedByKeystone(tc.err); got != tc.want {
			t.Errorf("RejectedByKeystone(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestDecide_Rejected: a delivered credential Keystone rejects (deleted out
// of band) is rotated like an expired one, and replaces a failed successor.
func TestDecide_Rejected(t *testing.T) {
	t.Parallel()
	in := steady(t0.Add(time.Hour))
	in.Rejected = true
	if got, want := Decide(in), (Decision{Action: ActionCreate, Generation: 2, Trigger: TriggerRejected}); got != want {
		t.Errorf("Decide = %+v, want %+v", got, want)
	}
	in.Desired = 2
	in.Credentials = append(in.Credentials, failed(2, t0, "boom", 0))
	if got, want := Decide(in), (Decision{Action: ActionReplaceFailed, Generation: 2, Replace: ReplaceLiveDying}); got != want {
		t.Errorf("Decide = %+v, want %+v", got, want)
	}
	c := CredentialCondition(Observation{Current: 1, Credentials: []Credential{cred(1, korc.PhaseAvailable)}, Delivered: true, Rejected: true}, 1)
	if c.Reason != c5c3v1alpha1.ReasonWaitingForCredential {
		t.Errorf("CredentialReady = %s/%s (%s)", c.Status, c.Reason, c.Message)
	}
}
