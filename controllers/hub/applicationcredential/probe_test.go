package applicationcredential

import (
	"testing"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

func TestIssuedAsSpecified(t *testing.T) {
	t.Parallel()
	exp := t0.Add(768 * time.Hour)
	cred := func(spec, status *time.Time) *orcv1alpha1.ApplicationCredential {
		o := &orcv1alpha1.ApplicationCredential{Spec: orcv1alpha1.ApplicationCredentialSpec{
			Resource: &orcv1alpha1.ApplicationCredentialResourceSpec{}}}
		if spec != nil {
			o.Spec.Resource.ExpiresAt = &metav1.Time{Time: *spec}
		}
		if status != nil {
			o.Status.Resource = &orcv1alpha1.ApplicationCredentialResourceStatus{ExpiresAt: &metav1.Time{Time: *status}}
		}
		return o
	}
	fraction := exp.Add(250 * time.Millisecond)
	other := exp.Add(-time.Hour)
	for _, tc := range []struct {
		name string
		o    *orcv1alpha1.ApplicationCredential
		want bool
	}{
		{"created from the spec", cred(&exp, &exp), true},
		{"Keystone's sub-second digits", cred(&exp, &fraction), true},
		{"adopted: another expiry", cred(&exp, &other), false},
		{"no expiry (schedule off)", cred(nil, nil), false},
		{"Keystone's expiry not reported yet", cred(&exp, nil), false},
		{"adopted: an expiry the spec does not ask for", cred(nil, &exp), false},
		{"no object", nil, false},
	} {
		if got := IssuedAsSpecified(tc.o); got != tc.want {
			t.Errorf("%s: IssuedAsSpecified = %v, want %v", tc.name, got, tc.want)
		}
	}
}
