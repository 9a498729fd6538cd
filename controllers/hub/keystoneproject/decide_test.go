package keystoneproject

import (
	"context"
	"strings"
	"testing"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/korc"
)

func plane(adminProject, adminDomain string) *c5c3v1alpha1.ControlPlane {
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "openstack"}}
	cp.Spec.KORC.AdminCredential.ProjectName = c5c3v1alpha1.KeystoneName(adminProject)
	cp.Spec.KORC.AdminCredential.DomainName = c5c3v1alpha1.KeystoneName(adminDomain)
	return cp
}

func kp(name, projectName, domain string) *c5c3v1alpha1.KeystoneProject {
	return &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "tenant-a"},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ProjectName: c5c3v1alpha1.KeystoneName(projectName), DomainName: c5c3v1alpha1.KeystoneName(domain)}}
}

func TestEffectiveNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                    string
		order                   *c5c3v1alpha1.KeystoneProject
		cp                      *c5c3v1alpha1.ControlPlane
		wantProject, wantDomain string
		wantAdminDomain         bool
	}{
		{"defaults", kp("workflow-project", "", ""), plane("", ""), "workflow-project", "Default", true},
		{"explicit", kp("o", "Workflow", "tenants"), plane("", ""), "Workflow", "tenants", false},
		{"plane admin domain elsewhere", kp("o", "", ""), plane("", "Cloud"), "o", "Cloud", true},
		{"admin domain by folding", kp("o", "", "DEFAULT"), plane("", ""), "o", "DEFAULT", true},
		{"accented is the same domain", kp("o", "", "défault"), plane("", ""), "o", "défault", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := EffectiveProjectName(tc.order); got != tc.wantProject {
				t.Errorf("EffectiveProjectName = %q, want %q", got, tc.wantProject)
			}
			d := EffectiveDomain(tc.order, tc.cp)
			if d != tc.wantDomain {
				t.Errorf("EffectiveDomain = %q, want %q", d, tc.wantDomain)
			}
			if got := IsAdminDomain(d, tc.cp); got != tc.wantAdminDomain {
				t.Errorf("IsAdminDomain(%q) = %t, want %t", d, got, tc.wantAdminDomain)
			}
		})
	}
}

func TestAdminProjectOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		order *c5c3v1alpha1.KeystoneProject
		cp    *c5c3v1alpha1.ControlPlane
		owns  bool
		want  AdminProject
	}{
		{"other name", kp("workflow", "", ""), plane("", ""), false, NotAdminProject},
		{"admin by metadata.name", kp("admin", "", ""), plane("", ""), false, AdminProjectNotOwned},
		{"ADMIN folds", kp("o", "ADMIN", ""), plane("", ""), false, AdminProjectNotOwned},
		{"accent and trailing space fold", kp("o", "admín ", ""), plane("", ""), false, AdminProjectNotOwned},
		{"admin name in another domain", kp("o", "admin", "tenants"), plane("", ""), false, NotAdminProject},
		{"plane's custom admin project", kp("o", "ops", ""), plane("ops", ""), false, AdminProjectNotOwned},
		{"owned", kp("o", "ops", ""), plane("ops", ""), true, AdminProjectOwned},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := AdminProjectOf(tc.order, tc.cp, tc.owns); got != tc.want {
				t.Errorf("AdminProjectOf = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestProjectCondition(t *testing.T) {
	t.Parallel()
	available := korc.State{Phase: korc.PhaseAvailable, ID: "p-1"}
	pendingDomain := korc.State{Phase: korc.PhaseProgressing, Message: korc.ImportPendingExternalMessage}
	failed := korc.State{Phase: korc.PhaseFailed, Reason: orcv1alpha1.ConditionReasonInvalidConfiguration, Message: "bad"}
	unauthorized := korc.State{Phase: korc.PhaseProgressing, Reason: orcv1alpha1.ConditionReasonTransientError, Message: "Unauthorized: 401"}
	tests := []struct {
		name      string
		o         Observation
		want      string
		wantTrue  bool
		wantInMsg string
	}{
		{"gate", Observation{Gate: conditions.Gate{Reason: c5c3v1alpha1.ReasonNamespaceNotAssigned, Message: "frozen"}}, c5c3v1alpha1.ReasonNamespaceNotAssigned, false, "frozen"},
		{"gate before everything", Observation{Gate: conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForAdminCredential}, Admin: AdminProjectNotOwned},
			c5c3v1alpha1.ReasonWaitingForAdminCredential, false, ""},
		{"admin not owned", Observation{Admin: AdminProjectNotOwned, Plane: "openstack/cp"}, c5c3v1alpha1.ReasonProjectCollision, false, "never orderable"},
		{"admin owned", Observation{Admin: AdminProjectOwned, ProjectExists: true}, c5c3v1alpha1.ReasonProjectCollision, false, "do NOT delete"},
		// Breaker H3: a claim held by another order is a collision naming it.
		{"name claimed by another order", Observation{DomainName: "Default", ClaimHolder: "KeystoneProject tenant-b/twin (management cluster)"},
			c5c3v1alpha1.ReasonProjectCollision, false, "KeystoneProject tenant-b/twin (management cluster)"},
		{"name claimed by another order, sharing a project from before claims", Observation{DomainName: "Default",
			ClaimHolder: "KeystoneProject tenant-b/twin (management cluster)", ProjectExists: true}, c5c3v1alpha1.ReasonProjectCollision, false, "do NOT delete"},
		{"kubernetes error", Observation{Error: errString("boom")}, c5c3v1alpha1.ReasonProjectError, false, "boom"},
		{"domain import failed", Observation{Domain: &failed, DomainName: "tenants"}, c5c3v1alpha1.ReasonProjectFailed, false, "domain tenants"},
		{"probe pending", Observation{Probe: korc.ProbeResult{Outcome: korc.ProbePending, Message: "authenticating"}}, c5c3v1alpha1.ReasonProbingForCollision, false, "authenticating"},
		{"probe waits on the domain", Observation{Domain: &pendingDomain, DomainName: "tenants", Probe: korc.ProbeResult{Outcome: korc.ProbePending}},
			c5c3v1alpha1.ReasonProbingForCollision, false, "domain tenants, which must exist"},
		{"probe pending external classified", Observation{External: true, Probe: korc.ProbeResult{Outcome: korc.ProbePending, Message: "dial tcp: connection refused"}},
			c5c3v1alpha1.ReasonEndpointUnreachable, false, "collision probe"},
		{"probe found", Observation{DomainName: "Default", Probe: korc.ProbeResult{Outcome: korc.ProbeFound, ID: "foreign"}}, c5c3v1alpha1.ReasonProjectCollision, false, "foreign"},
		{"probe error", Observation{Probe: korc.ProbeResult{Outcome: korc.ProbeError, Reason: "InvalidConfiguration", Message: "two match"}},
			c5c3v1alpha1.ReasonProjectFailed, false, "two match"},
		{"project pending", Observation{ProjectExists: true, Project: korc.State{Phase: korc.PhasePending}}, c5c3v1alpha1.ReasonWaitingForKeystoneProject, false, "not Available"},
		{"project transient managed", Observation{ProjectExists: true, Project: unauthorized}, c5c3v1alpha1.ReasonWaitingForKeystoneProject, false, "Unauthorized"},
		{"project transient external", Observation{External: true, ProjectExists: true, Project: unauthorized}, c5c3v1alpha1.ReasonAuthenticationFailed, false, "Unauthorized"},
		{"project failed", Observation{ProjectExists: true, Project: failed}, c5c3v1alpha1.ReasonProjectFailed, false, "bad"},
		{"available", Observation{ProjectExists: true, Project: available}, c5c3v1alpha1.ReasonProjectProvisioned, true, "p-1"},
		{"available without an id", Observation{ProjectExists: true, Project: korc.State{Phase: korc.PhaseAvailable}},
			c5c3v1alpha1.ReasonWaitingForKeystoneProject, false, "no project id"},
		{"available probe ignored", Observation{ProjectExists: true, Project: available, Probe: korc.ProbeResult{Outcome: korc.ProbeFound, ID: "x"}},
			c5c3v1alpha1.ReasonProjectProvisioned, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := ProjectCondition(tc.o, 3)
			if c.Type != c5c3v1alpha1.ConditionProjectReady || c.Reason != tc.want || (c.Status == metav1.ConditionTrue) != tc.wantTrue ||
				c.ObservedGeneration != 3 || !strings.Contains(c.Message, tc.wantInMsg) {
				t.Errorf("ProjectCondition = %+v, want %s (true=%t) containing %q", c, tc.want, tc.wantTrue, tc.wantInMsg)
			}
			ready := Conditions(c, 3)[1]
			if ready.Type != c5c3v1alpha1.ConditionReady || (ready.Status == metav1.ConditionTrue) != tc.wantTrue {
				t.Errorf("Ready = %+v", ready)
			}
		})
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestHeldCondition(t *testing.T) {
	t.Parallel()
	c := HeldCondition(orders.Held{"a", "b"}, "workflow-project", 2)
	if c.Reason != c5c3v1alpha1.ReasonReferencedByApplicationCredentials || c.Status != metav1.ConditionFalse ||
		!strings.Contains(c.Message, "a, b") || !strings.Contains(c.Message, "workflow-project") {
		t.Errorf("HeldCondition = %+v", c)
	}
}

func TestStatusOf(t *testing.T) {
	t.Parallel()
	prev := c5c3v1alpha1.KeystoneProjectStatus{ProjectID: "old", ProjectName: "n", DomainID: "d"}
	avail := Observation{ProjectExists: true, Project: korc.State{Phase: korc.PhaseAvailable, ID: "p-1"}}
	tests := []struct {
		name     string
		prev     c5c3v1alpha1.KeystoneProjectStatus
		o        Observation
		domainID string
		want     c5c3v1alpha1.KeystoneProjectStatus
	}{
		{"first available", c5c3v1alpha1.KeystoneProjectStatus{}, avail, "dom", c5c3v1alpha1.KeystoneProjectStatus{ProjectID: "p-1", ProjectName: "eff", DomainID: "dom"}},
		{"available without domain id keeps it", prev, avail, "", c5c3v1alpha1.KeystoneProjectStatus{ProjectID: "p-1", ProjectName: "eff", DomainID: "d"}},
		{"waiting keeps", prev, Observation{ProjectExists: true, Project: korc.State{Phase: korc.PhaseProgressing}}, "x", prev},
		{"frozen keeps", prev, Observation{Gate: conditions.Gate{Reason: c5c3v1alpha1.ReasonNamespaceNotAssigned}, ProjectExists: true,
			Project: korc.State{Phase: korc.PhaseAvailable, ID: "p-1"}}, "x", prev},
		{"collision reports nothing", c5c3v1alpha1.KeystoneProjectStatus{}, Observation{Probe: korc.ProbeResult{Outcome: korc.ProbeFound, ID: "f"}}, "",
			c5c3v1alpha1.KeystoneProjectStatus{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := StatusOf(tc.prev, tc.o, "eff", tc.domainID); got.ProjectID != tc.want.ProjectID ||
				got.ProjectName != tc.want.ProjectName || got.DomainID != tc.want.DomainID {
				t.Errorf("StatusOf = %+v, want %+v", got, tc.want)
			}
		})
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
		{false, false, 4 * time.Minute, orders.NotReadyCap},
		{false, false, time.Hour, orders.NotReadyCap},
		{true, false, 0, ReadyResync},
		{false, true, 0, NotReadyRequeue},
		{false, true, time.Hour, orders.NotReadyCap},
		{true, true, 0, orders.RequeueTarget},
	}
	for _, tc := range tests {
		if got := RequeueAfter(tc.ready, tc.target, tc.notReadyFor); got != tc.want || (tc.target && got > orders.RequeueTarget) {
			t.Errorf("RequeueAfter(%t, %t, %s) = %s, want %s", tc.ready, tc.target, tc.notReadyFor, got, tc.want)
		}
	}
}

func TestDescription(t *testing.T) {
	t.Parallel()
	if description("") != nil {
		t.Error("an empty description must be omitted (K-ORC MinLength 1)")
	}
	if d := description(" x "); d == nil || *d != " x " {
		t.Errorf("description = %v", d)
	}
}

func TestProjectOfCredential(t *testing.T) {
	t.Parallel()
	ac := &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "tenant-a"}}
	ac.Spec.ProjectRef.Name = "workflow-project"
	reqs := projectOfCredential(context.Background(), ac)
	if len(reqs) != 1 || reqs[0].Namespace != "tenant-a" || reqs[0].Name != "workflow-project" {
		t.Errorf("projectOfCredential = %v", reqs)
	}
	if reqs := projectOfCredential(context.Background(), &c5c3v1alpha1.KeystoneProject{}); reqs != nil {
		t.Errorf("another kind mapped to %v", reqs)
	}
}

// Breaker M1: a KeystoneUser naming the project as its default project
// holds the project's deletion, with a message naming it and the remedy.
func TestUsersReferencing(t *testing.T) {
	t.Parallel()
	u := func(name, project string, deleting bool) c5c3v1alpha1.KeystoneUser {
		ku := c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if project != "" {
			ku.Spec.DefaultProjectRef = &c5c3v1alpha1.OrderRef{Name: project}
		}
		if deleting {
			now := metav1.Now()
			ku.DeletionTimestamp = &now
		}
		return ku
	}
	got := UsersReferencing("p", []c5c3v1alpha1.KeystoneUser{u("z", "p", false), u("a", "p", true), u("b", "q", false), u("c", "", false)})
	if strings.Join(got, ",") != "a,z" {
		t.Errorf("UsersReferencing = %v, want [a z]", got)
	}
	if got := UsersReferencing("p", nil); len(got) != 0 {
		t.Errorf("UsersReferencing(nil) = %v", got)
	}
	c := HeldByUsersCondition(got, "p", 3)
	if c.Status != metav1.ConditionFalse || c.Reason != c5c3v1alpha1.ReasonReferencedByUsers || c.ObservedGeneration != 3 || !strings.Contains(c.Message, "KeystoneUser a, z") ||
		!strings.Contains(c.Message, "delete the user order") {
		t.Errorf("HeldByUsersCondition = %+v", c)
	}
	d := DeletingCondition(2, nil, 3)
	if d.Status != metav1.ConditionFalse || d.Reason != c5c3v1alpha1.ReasonWaitingForKeystoneProject || !strings.Contains(d.Message, "2 children") {
		t.Errorf("DeletingCondition = %+v", d)
	}
}
