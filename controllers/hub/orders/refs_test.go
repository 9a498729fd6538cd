package orders

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func cond(t string, st metav1.ConditionStatus, reason string) []metav1.Condition {
	return []metav1.Condition{{Type: t, Status: st, Reason: reason}}
}

// provisioned gives u a Keystone id and delivered generation gen, then applies more.
func provisioned(u *c5c3v1alpha1.KeystoneUser, gen int64, more ...func(*c5c3v1alpha1.KeystoneUser)) *c5c3v1alpha1.KeystoneUser {
	u.Status.UserID, u.Status.PasswordGeneration = "uid-1", gen
	for _, f := range more {
		f(u)
	}
	return u
}

func TestUserGate(t *testing.T) {
	t.Parallel()
	budgetHeld := cond(c5c3v1alpha1.ConditionUserReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonRotationBudgetExhausted)
	user := func(planeNS string, conds []metav1.Condition) *c5c3v1alpha1.KeystoneUser {
		u := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "workflow", Namespace: "tenant-a"}}
		u.Spec.ControlPlaneRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS}
		u.Status.Conditions = conds
		return u
	}
	tests := []struct {
		name      string
		user      *c5c3v1alpha1.KeystoneUser
		want      string
		wantInMsg string
	}{
		{"missing", nil, c5c3v1alpha1.ReasonUserNotFound, "create it or correct spec.userRef"},
		{"other plane", user("other", cond(c5c3v1alpha1.ConditionUserReady, metav1.ConditionTrue, "UserProvisioned")), c5c3v1alpha1.ReasonControlPlaneMismatch, "other/cp"},
		{"empty ref namespace resolves to the user's namespace", user("", nil), c5c3v1alpha1.ReasonControlPlaneMismatch, "tenant-a/cp"},
		{"not ready names its reason", user("openstack", cond(c5c3v1alpha1.ConditionUserReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonUserCollision)), c5c3v1alpha1.ReasonWaitingForUser, "UserCollision"},
		{"no condition yet", user("openstack", nil), c5c3v1alpha1.ReasonWaitingForUser, "not reported"},
		{"ready", user("openstack", cond(c5c3v1alpha1.ConditionUserReady, metav1.ConditionTrue, "UserProvisioned")), "", ""},
		{"budget-held rotation of a provisioned user passes", provisioned(user("openstack", budgetHeld), 2), "", ""},
		{"budget-held user without a Keystone id waits", provisioned(user("openstack", budgetHeld), 2, func(u *c5c3v1alpha1.KeystoneUser) { u.Status.UserID = "" }),
			c5c3v1alpha1.ReasonWaitingForUser, c5c3v1alpha1.ReasonRotationBudgetExhausted},
		{"budget-held first password waits", provisioned(user("openstack", budgetHeld), 0), c5c3v1alpha1.ReasonWaitingForUser, c5c3v1alpha1.ReasonRotationBudgetExhausted},
		{"provisioned user failing for another reason waits", provisioned(user("openstack", cond(c5c3v1alpha1.ConditionUserReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonUserFailed)), 2),
			c5c3v1alpha1.ReasonWaitingForUser, c5c3v1alpha1.ReasonUserFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := UserGate("tenant-a", c5c3v1alpha1.OrderRef{Name: "workflow"}, tc.user, "openstack", "cp")
			if g.Reason != tc.want || !strings.Contains(g.Message, tc.wantInMsg) {
				t.Errorf("UserGate = %q (%s), want %q containing %q", g.Reason, g.Message, tc.want, tc.wantInMsg)
			}
		})
	}
}

func TestProjectGate(t *testing.T) {
	t.Parallel()
	project := func(planeNS string, conds []metav1.Condition, name string) *c5c3v1alpha1.KeystoneProject {
		p := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: "workflow-project", Namespace: "tenant-a"}}
		p.Spec.ControlPlaneRef = c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS}
		p.Status.Conditions = conds
		p.Status.ProjectName = name
		return p
	}
	ready := cond(c5c3v1alpha1.ConditionProjectReady, metav1.ConditionTrue, c5c3v1alpha1.ReasonProjectProvisioned)
	tests := []struct {
		name      string
		project   *c5c3v1alpha1.KeystoneProject
		want      string
		wantInMsg string
	}{
		{"missing", nil, c5c3v1alpha1.ReasonProjectNotFound, "correct spec.projectRef"},
		{"other plane", project("other", ready, "p"), c5c3v1alpha1.ReasonControlPlaneMismatch, "other/cp"},
		{"not ready", project("openstack", cond(c5c3v1alpha1.ConditionProjectReady, metav1.ConditionFalse, c5c3v1alpha1.ReasonProjectCollision), "p"), c5c3v1alpha1.ReasonWaitingForProject, "ProjectCollision"},
		{"ready without a name", project("openstack", ready, ""), c5c3v1alpha1.ReasonWaitingForProject, "status.projectName"},
		{"ready", project("openstack", ready, "workflow-project"), "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := ProjectGate("tenant-a", c5c3v1alpha1.OrderRef{Name: "workflow-project"}, tc.project, "openstack", "cp")
			if g.Reason != tc.want || !strings.Contains(g.Message, tc.wantInMsg) {
				t.Errorf("ProjectGate = %q (%s), want %q containing %q", g.Reason, g.Message, tc.want, tc.wantInMsg)
			}
		})
	}
}
