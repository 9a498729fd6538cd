package keystoneroleassignment

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/korc"
)

func httpErr(code int) error {
	return fmt.Errorf("assign role r: %w", gophercloud.ErrUnexpectedResponseCode{Actual: code, Expected: []int{204}, Method: "PUT", URL: "http://k/v3"})
}

// open is an observation whose gates all passed.
func open() Observation {
	return Observation{Allowed: true, Role: "member", Plane: "openstack/cp", Namespace: "tenant-a"}
}

func with(f func(*Observation)) Observation {
	o := open()
	f(&o)
	return o
}

func TestAssignmentCondition(t *testing.T) {
	t.Parallel()
	found := korc.ProbeResult{Outcome: korc.ProbeFound, ID: "role-1"}
	tests := []struct {
		name      string
		o         Observation
		want      string
		wantTrue  bool
		wantInMsg string
	}{
		{"shared gate first", with(func(o *Observation) {
			o.Gate = conditions.Gate{Reason: c5c3v1alpha1.ReasonNamespaceNotAssigned, Message: "frozen"}
			o.Allowed = false
		}), c5c3v1alpha1.ReasonNamespaceNotAssigned, false, "frozen"},
		{"role not allowed before references", with(func(o *Observation) {
			o.Allowed = false
			o.Refs = conditions.Gate{Reason: c5c3v1alpha1.ReasonUserNotFound}
		}), c5c3v1alpha1.ReasonRoleNotAllowed, false, `"member"`},
		{"user not found", with(func(o *Observation) {
			o.Refs = conditions.Gate{Reason: c5c3v1alpha1.ReasonUserNotFound, Message: "no user"}
		}),
			c5c3v1alpha1.ReasonUserNotFound, false, "no user"},
		{"waiting for project", with(func(o *Observation) { o.Refs = conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForProject} }),
			c5c3v1alpha1.ReasonWaitingForProject, false, ""},
		{"kubernetes error", with(func(o *Observation) { o.Error = errors.New("boom") }), c5c3v1alpha1.ReasonAssignmentError, false, "boom"},
		{"role absent", with(func(o *Observation) { o.RoleImport = korc.ProbeResult{Outcome: korc.ProbeAbsent} }),
			c5c3v1alpha1.ReasonRoleNotFound, false, "never created"},
		{"role import terminal", with(func(o *Observation) {
			o.RoleImport = korc.ProbeResult{Outcome: korc.ProbeError, Reason: "InvalidConfiguration", Message: "two roles"}
		}), c5c3v1alpha1.ReasonAssignmentFailed, false, "two roles"},
		{"role import pending", with(func(o *Observation) { o.RoleImport = korc.ProbeResult{Outcome: korc.ProbePending} }),
			c5c3v1alpha1.ReasonWaitingForAssignment, false, "not Available"},
		{"role import pending external classified", with(func(o *Observation) {
			o.External = true
			o.RoleImport = korc.ProbeResult{Outcome: korc.ProbePending, Message: "x509: certificate signed by unknown authority"}
		}), c5c3v1alpha1.ReasonTLSVerificationFailed, false, "x509"},
		{"grant refused", with(func(o *Observation) { o.RoleImport = found; o.GrantError = httpErr(403) }),
			c5c3v1alpha1.ReasonAssignmentFailed, false, "assigning the role"},
		{"grant transport error", with(func(o *Observation) { o.RoleImport = found; o.GrantError = errors.New("connection reset") }),
			c5c3v1alpha1.ReasonWaitingForAssignment, false, "connection reset"},
		{"not granted yet", with(func(o *Observation) { o.RoleImport = found }), c5c3v1alpha1.ReasonWaitingForAssignment, false, "not assigned"},
		{"assigned", with(func(o *Observation) { o.RoleImport = found; o.Granted = true }), c5c3v1alpha1.ReasonRoleAssigned, true, "role-1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := AssignmentCondition(tc.o, 4)
			if c.Type != c5c3v1alpha1.ConditionAssignmentReady || c.Reason != tc.want || (c.Status == metav1.ConditionTrue) != tc.wantTrue ||
				c.ObservedGeneration != 4 || !strings.Contains(c.Message, tc.wantInMsg) {
				t.Errorf("AssignmentCondition = %+v, want %s (true=%t) containing %q", c, tc.want, tc.wantTrue, tc.wantInMsg)
			}
			ready := Conditions(c, 4)[1]
			if ready.Type != c5c3v1alpha1.ConditionReady || (ready.Status == metav1.ConditionTrue) != tc.wantTrue {
				t.Errorf("Ready = %+v", ready)
			}
		})
	}
}

func TestGrantReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		err      error
		external bool
		want     string
	}{
		{"400", httpErr(400), false, c5c3v1alpha1.ReasonAssignmentFailed},
		{"403", httpErr(403), false, c5c3v1alpha1.ReasonAssignmentFailed},
		{"404", httpErr(404), false, c5c3v1alpha1.ReasonAssignmentFailed},
		{"409", httpErr(409), false, c5c3v1alpha1.ReasonAssignmentFailed},
		{"401 managed retries", httpErr(401), false, c5c3v1alpha1.ReasonWaitingForAssignment},
		{"401 external classified", httpErr(401), true, c5c3v1alpha1.ReasonAuthenticationFailed},
		{"503", httpErr(503), false, c5c3v1alpha1.ReasonWaitingForAssignment},
		{"404 external not classified", httpErr(404), true, c5c3v1alpha1.ReasonAssignmentFailed},
		{"dial external", errors.New("dial tcp 10.0.0.1:5000: connect: connection refused"), true, c5c3v1alpha1.ReasonEndpointUnreachable},
		{"dial managed", errors.New("dial tcp 10.0.0.1:5000: connect: connection refused"), false, c5c3v1alpha1.ReasonWaitingForAssignment},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := GrantReason(tc.err, tc.external); got != tc.want {
				t.Errorf("GrantReason(%v, %t) = %s, want %s", tc.err, tc.external, got, tc.want)
			}
		})
	}
}

func TestStatusOf(t *testing.T) {
	t.Parallel()
	prev := c5c3v1alpha1.KeystoneRoleAssignmentStatus{RoleID: "role-1", UserID: "u", ProjectID: "p"}
	found := korc.ProbeResult{Outcome: korc.ProbeFound, ID: "role-1"}
	tests := []struct {
		name string
		prev c5c3v1alpha1.KeystoneRoleAssignmentStatus
		o    Observation
		want c5c3v1alpha1.KeystoneRoleAssignmentStatus
	}{
		{"granted", c5c3v1alpha1.KeystoneRoleAssignmentStatus{}, with(func(o *Observation) { o.RoleImport = found; o.Granted = true }),
			c5c3v1alpha1.KeystoneRoleAssignmentStatus{RoleID: "role-1", UserID: "u2", ProjectID: "p2"}},
		{"not granted yet: ids only", c5c3v1alpha1.KeystoneRoleAssignmentStatus{}, with(func(o *Observation) { o.RoleImport = found }),
			c5c3v1alpha1.KeystoneRoleAssignmentStatus{UserID: "u2", ProjectID: "p2"}},
		{"frozen keeps roleID", prev, with(func(o *Observation) { o.Gate = conditions.Gate{Reason: c5c3v1alpha1.ReasonNamespaceNotAssigned} }), prev},
		{"not allowed keeps roleID", prev, with(func(o *Observation) { o.Allowed = false }), prev},
		{"user order gone clears roleID", prev, with(func(o *Observation) { o.Refs = conditions.Gate{Reason: c5c3v1alpha1.ReasonUserNotFound} }),
			c5c3v1alpha1.KeystoneRoleAssignmentStatus{UserID: "u", ProjectID: "p"}},
		{"project order gone clears roleID", prev, with(func(o *Observation) { o.Refs = conditions.Gate{Reason: c5c3v1alpha1.ReasonProjectNotFound} }),
			c5c3v1alpha1.KeystoneRoleAssignmentStatus{UserID: "u", ProjectID: "p"}},
		{"mismatch keeps", prev, with(func(o *Observation) { o.Refs = conditions.Gate{Reason: c5c3v1alpha1.ReasonControlPlaneMismatch} }), prev},
		{"waiting user keeps", prev, with(func(o *Observation) { o.Refs = conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForUser} }), prev},
		{"grant read failed keeps roleID", prev, with(func(o *Observation) { o.RoleImport = found; o.GrantError = errors.New("x") }),
			c5c3v1alpha1.KeystoneRoleAssignmentStatus{RoleID: "role-1", UserID: "u2", ProjectID: "p2"}},
		{"role gone clears roleID", prev, with(func(o *Observation) { o.RoleImport = korc.ProbeResult{Outcome: korc.ProbeAbsent} }),
			c5c3v1alpha1.KeystoneRoleAssignmentStatus{UserID: "u2", ProjectID: "p2"}},
		{"kubernetes error keeps roleID", prev, with(func(o *Observation) { o.Error = errors.New("x") }),
			c5c3v1alpha1.KeystoneRoleAssignmentStatus{RoleID: "role-1", UserID: "u2", ProjectID: "p2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := StatusOf(tc.prev, tc.o, "u2", "p2")
			if got.RoleID != tc.want.RoleID || got.UserID != tc.want.UserID || got.ProjectID != tc.want.ProjectID {
				t.Errorf("StatusOf = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func ra(name, user, project, role, planeNS string, deleting bool) c5c3v1alpha1.KeystoneRoleAssignment {
	r := c5c3v1alpha1.KeystoneRoleAssignment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "tenant-a"},
		Spec: c5c3v1alpha1.KeystoneRoleAssignmentSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS},
			UserRef: c5c3v1alpha1.OrderRef{Name: user}, ProjectRef: c5c3v1alpha1.OrderRef{Name: project}, Role: c5c3v1alpha1.KeystoneName(role)}}
	if deleting {
		now := metav1.Now()
		r.DeletionTimestamp = &now
	}
	return r
}

func TestSharedBy(t *testing.T) {
	t.Parallel()
	me := ra("me", "u", "p", "member", "openstack", true)
	others := []c5c3v1alpha1.KeystoneRoleAssignment{
		me,
		ra("twin-b", "u", "p", "member", "openstack", false),
		ra("twin-a", "u", "p", "Member", "openstack", false),
		ra("dying", "u", "p", "member", "openstack", true),
		ra("other-role", "u", "p", "reader", "openstack", false),
		ra("other-user", "v", "p", "member", "openstack", false),
		ra("other-project", "u", "q", "member", "openstack", false),
		ra("other-plane", "u", "p", "member", "elsewhere", false),
	}
	other := ra("other-ns", "u", "p", "member", "openstack", false)
	other.Namespace = "tenant-b"
	others = append(others, other)
	if got := SharedBy(&me, others); !slices.Equal(got, []string{"twin-a", "twin-b"}) {
		t.Errorf("SharedBy = %v", got)
	}
	if got := SharedBy(&me, []c5c3v1alpha1.KeystoneRoleAssignment{me}); got != nil {
		t.Errorf("SharedBy alone = %v", got)
	}
}

func TestPlanRevoke(t *testing.T) {
	t.Parallel()
	up := Revocation{UserID: "u", ProjectID: "p"}
	tests := []struct {
		name         string
		rec          Revocation
		importID     string
		statusRoleID string
		shared       []string
		plane        bool
		want         Revocation
		wantOK       bool
	}{
		{"revoke the import's role", up, "i", "", nil, true, Revocation{"u", "p", "i"}, true},
		{"the import's role wins over status.roleID", up, "i", "forged", nil, true, Revocation{"u", "p", "i"}, true},
		{"import unresolved: status.roleID", up, "", "r", nil, true, Revocation{"u", "p", "r"}, true},
		{"shared", up, "i", "r", []string{"twin"}, true, Revocation{}, false},
		{"plane gone", up, "i", "r", nil, false, Revocation{}, false},
		{"never granted", up, "", "", nil, true, Revocation{}, false},
		{"no user id known", Revocation{ProjectID: "p"}, "i", "r", nil, true, Revocation{}, false},
		{"no project id known", Revocation{UserID: "u"}, "i", "r", nil, true, Revocation{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := PlanRevoke(tc.rec, tc.importID, tc.statusRoleID, tc.shared, tc.plane)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("PlanRevoke = %+v, %t, want %+v, %t", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// The user and project a teardown revokes from are the import's
// annotations, else (an import written before them) the K-ORC children's
// ids; an annotation pair with a half missing counts as none.
func TestRecorded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		want        Revocation
	}{
		{"annotations win over the children", grantAnnotations("u", "p"), Revocation{UserID: "u", ProjectID: "p"}},
		{"no import", nil, Revocation{UserID: "cu", ProjectID: "cp"}},
		{"an import from before the annotations", map[string]string{"other": "x"}, Revocation{UserID: "cu", ProjectID: "cp"}},
		{"half an annotation pair", map[string]string{AnnotationGrantUserID: "u"}, Revocation{UserID: "cu", ProjectID: "cp"}},
	} {
		if got := Recorded(tc.annotations, "cu", "cp"); got != tc.want {
			t.Errorf("%s: Recorded = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestHeldCondition(t *testing.T) {
	t.Parallel()
	c := HeldCondition(orders.Held{"appcred"}, "workflow-member", 1)
	if c.Type != c5c3v1alpha1.ConditionAssignmentReady || c.Reason != c5c3v1alpha1.ReasonReferencedByApplicationCredentials ||
		!strings.Contains(c.Message, "appcred") || !strings.Contains(c.Message, "KeystoneRoleAssignment workflow-member") {
		t.Errorf("HeldCondition = %+v", c)
	}
}

func TestRequeueAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ready, target bool
		notReadyFor   time.Duration
		want          time.Duration
	}{
		{false, false, 0, NotReadyRequeue},
		{false, false, time.Minute, 30 * time.Second},
		{false, false, time.Hour, orders.NotReadyCap},
		{true, false, time.Hour, ReadyResync},
		{true, true, 0, min(ReadyResync, orders.RequeueTarget)},
	}
	for _, tc := range tests {
		if got := RequeueAfter(tc.ready, tc.target, tc.notReadyFor); got != tc.want {
			t.Errorf("RequeueAfter(%t, %t, %s) = %s, want %s", tc.ready, tc.target, tc.notReadyFor, got, tc.want)
		}
	}
}

func TestRoleImportName(t *testing.T) {
	t.Parallel()
	o := orders.Order{Kind: orders.KindKeystoneRoleAssignment, Namespace: "tenant-a", Name: "workflow-member"}
	got := roleImportName(o, "Member")
	want := korc.OrderChildName(korc.InfixRoleAssignment, "", "tenant-a", "workflow-member", korc.RoleDiscriminator("Member"))
	if got != want || !strings.Contains(got, "-roleassignment-role-member-") {
		t.Errorf("roleImportName = %q, want %q", got, want)
	}
	if roleImportName(orders.Order{Cluster: "edge", Namespace: "tenant-a", Name: "workflow-member"}, "member") == roleImportName(o, "member") {
		t.Error("the cluster is not part of the child name's hash")
	}
}
