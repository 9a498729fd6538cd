package nameprobe

import (
	"errors"
	"strings"
	"testing"

	"github.com/c5c3/orderhub/korc"
)

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ids     []string
		err     error
		want    korc.ProbeOutcome
		id, msg string
	}{
		{name: "absent", want: korc.ProbeAbsent},
		{name: "found", ids: []string{"a1"}, want: korc.ProbeFound, id: "a1"},
		{name: "several", ids: []string{"a1", "b2"}, want: korc.ProbeError, msg: "2 projects match (ids a1, b2)"},
		{name: "failed", ids: []string{"a1"}, err: errors.New("connection refused"), want: korc.ProbePending,
			msg: "the project lookup with the plane's admin credential failed: connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Verdict("project", tc.ids, tc.err)
			if got.Outcome != tc.want || got.ID != tc.id || !strings.Contains(got.Message, tc.msg) {
				t.Errorf("Verdict(%v, %v) = %+v, want outcome %s, id %q, message with %q", tc.ids, tc.err, got, tc.want, tc.id, tc.msg)
			}
			if tc.err != nil && !got.Transient {
				t.Error("a failed lookup must be transient (retried)")
			}
		})
	}
}

func TestDomainID(t *testing.T) {
	for _, tc := range []struct {
		domain *korc.State
		want   string
	}{
		{nil, ""},
		{&korc.State{Phase: korc.PhaseProgressing, ID: "d1"}, ""},
		{&korc.State{Phase: korc.PhaseAvailable, ID: "d1"}, "d1"},
	} {
		if got := DomainID(tc.domain); got != tc.want {
			t.Errorf("DomainID(%+v) = %q, want %q", tc.domain, got, tc.want)
		}
	}
}
