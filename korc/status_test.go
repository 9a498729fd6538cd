package korc

import (
	"testing"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func cond(typ string, status metav1.ConditionStatus, reason, msg string, gen int64) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: gen}
}

func service(gen int64, id *string, conds ...metav1.Condition) *orcv1alpha1.Service {
	s := &orcv1alpha1.Service{}
	s.Generation = gen
	s.Status.ID = id
	s.Status.Conditions = conds
	return s
}

const waitingExternal = "Waiting for OpenStack resource to be created externally"

func TestStateOf(t *testing.T) {
	for _, tc := range []struct {
		name      string
		obj       *orcv1alpha1.Service
		phase     Phase
		transient bool
		id        string
	}{
		{"no status", service(1, nil), PhasePending, false, ""},
		{"available", service(2, ptr.To("abc"),
			cond("Available", "True", "Success", "OpenStack resource is available", 2),
			cond("Progressing", "False", "Success", "OpenStack resource is up to date", 2)), PhaseAvailable, false, "abc"},
		{"available at an older generation", service(3, ptr.To("abc"),
			cond("Available", "True", "Success", "", 2), cond("Progressing", "False", "Success", "", 2)), PhasePending, false, "abc"},
		{"progressing", service(1, nil,
			cond("Available", "False", "Progressing", waitingExternal, 1),
			cond("Progressing", "True", "Progressing", waitingExternal, 1)), PhaseProgressing, false, ""},
		{"transient", service(1, nil,
			cond("Available", "False", "TransientError", "Unauthorized", 1),
			cond("Progressing", "True", "TransientError", "Unauthorized", 1)), PhaseProgressing, true, ""},
		{"terminal", service(1, nil,
			cond("Available", "False", "InvalidConfiguration", "found more than one matching OpenStack resource", 1),
			cond("Progressing", "False", "InvalidConfiguration", "found more than one matching OpenStack resource", 1)), PhaseFailed, false, ""},
		{"unrecoverable", service(1, nil,
			cond("Progressing", "False", "UnrecoverableError", "x", 1)), PhaseFailed, false, ""},
		{"terminal at an older generation", service(2, nil,
			cond("Progressing", "False", "InvalidConfiguration", "x", 1)), PhasePending, false, ""},
	} {
		s := StateOf(tc.obj)
		if s.Phase != tc.phase || s.Transient != tc.transient || s.ID != tc.id {
			t.Errorf("%s: %+v", tc.name, s)
		}
		if s.Phase == PhaseFailed && s.Message == "" {
			t.Errorf("%s: terminal state without a message", tc.name)
		}
		if (s.Phase == PhaseAvailable) != AvailableUpToDate(tc.obj) {
			t.Errorf("%s: AvailableUpToDate disagrees", tc.name)
		}
	}
}

func TestIDOf(t *testing.T) {
	id := ptr.To("x")
	for _, o := range []orcv1alpha1.ObjectWithConditions{
		&orcv1alpha1.Domain{Status: orcv1alpha1.DomainStatus{ID: id}},
		&orcv1alpha1.Project{Status: orcv1alpha1.ProjectStatus{ID: id}},
		&orcv1alpha1.Role{Status: orcv1alpha1.RoleStatus{ID: id}},
		&orcv1alpha1.User{Status: orcv1alpha1.UserStatus{ID: id}},
		&orcv1alpha1.Service{Status: orcv1alpha1.ServiceStatus{ID: id}},
		&orcv1alpha1.Endpoint{Status: orcv1alpha1.EndpointStatus{ID: id}},
		&orcv1alpha1.ApplicationCredential{Status: orcv1alpha1.ApplicationCredentialStatus{ID: id}},
	} {
		if IDOf(o) != "x" {
			t.Errorf("%T: id %q", o, IDOf(o))
		}
	}
	if IDOf(&orcv1alpha1.Network{Status: orcv1alpha1.NetworkStatus{ID: id}}) != "" {
		t.Error("unexpected kind read")
	}
}

func TestPasswordApplied(t *testing.T) {
	u := &orcv1alpha1.User{}
	if AppliedPasswordRef(u) != "" || PasswordApplied(u, "") || PasswordApplied(u, "pw-v1") {
		t.Fatal("no status read as applied")
	}
	u.Status.Resource = &orcv1alpha1.UserResourceStatus{AppliedPasswordRef: "pw-v1"}
	if !PasswordApplied(u, "pw-v1") || PasswordApplied(u, "pw-v2") || AppliedPasswordRef(u) != "pw-v1" {
		t.Fatal("applied ref misread")
	}
}
