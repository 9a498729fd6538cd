package korc

import (
	"testing"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	"k8s.io/utils/ptr"
)

func TestProbe(t *testing.T) {
	for _, tc := range []struct {
		name      string
		obj       *orcv1alpha1.Service
		want      ProbeOutcome
		id        string
		transient bool
	}{
		{"no status yet", service(1, nil), ProbePending, "", false},
		{"absent", service(1, nil,
			cond("Available", "False", "Progressing", waitingExternal, 1),
			cond("Progressing", "True", "Progressing", waitingExternal, 1)), ProbeAbsent, "", false},
		{"absent, among other progress lines", service(1, nil,
			cond("Progressing", "True", "Progressing", "Waiting for Domain/d to be ready\n"+waitingExternal, 1)), ProbeAbsent, "", false},
		{"absent at an older generation", service(2, nil,
			cond("Progressing", "True", "Progressing", waitingExternal, 1)), ProbePending, "", false},
		{"found", service(1, ptr.To("svc-id"),
			cond("Available", "True", "Success", "OpenStack resource is available", 1),
			cond("Progressing", "False", "Success", "OpenStack resource is up to date", 1)), ProbeFound, "svc-id", false},
		{"transient error", service(1, nil,
			cond("Progressing", "True", "TransientError", "Expected HTTP response code [200] ... 401", 1)), ProbePending, "", true},
		{"other wait", service(1, nil,
			cond("Progressing", "True", "Progressing", "Waiting for Secret/k-orc-clouds-yaml to be created", 1)), ProbePending, "", false},
		{"several matches", service(1, nil,
			cond("Progressing", "False", "InvalidConfiguration", "found more than one matching OpenStack resource", 1)), ProbeError, "", false},
	} {
		r := Probe(tc.obj)
		if r.Outcome != tc.want || r.ID != tc.id || r.Transient != tc.transient {
			t.Errorf("%s: %+v", tc.name, r)
		}
		if r.Outcome == ProbeError && r.Message == "" {
			t.Errorf("%s: error without a message", tc.name)
		}
	}
	if ImportPendingExternalMessage != waitingExternal {
		t.Fatal("marker drifted from K-ORC's text")
	}
}
