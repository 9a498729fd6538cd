package orders

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
)

// UserGate checks the KeystoneUser ref names in namespace (nil when absent)
// for an order of plane planeNamespace/planeName. First match wins:
// UserNotFound, ControlPlaneMismatch, WaitingForUser (not UserProvisioned)
// (docs/reference/keystoneapplicationcredential.md, "Consent").
func UserGate(namespace string, ref c5c3v1alpha1.OrderRef, user *c5c3v1alpha1.KeystoneUser, planeNamespace, planeName string) conditions.Gate {
	if user == nil {
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonUserNotFound, Message: fmt.Sprintf(
			"spec.userRef names KeystoneUser %s, which does not exist in namespace %s: create it or correct spec.userRef",
			ref.Name, namespace)}
	}
	if ns, n := PlaneKey(user.Spec.ControlPlaneRef, user.Namespace); ns != planeNamespace || n != planeName {
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonControlPlaneMismatch, Message: fmt.Sprintf(
			"KeystoneUser %s belongs to ControlPlane %s/%s, this order to %s/%s: reference a user of the same ControlPlane",
			user.Name, ns, n, planeNamespace, planeName)}
	}
	if !UserProvisioned(user) {
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForUser, Message: fmt.Sprintf(
			"KeystoneUser %s is not provisioned yet (UserReady: %s)", user.Name, conditionReason(user.Status.Conditions, c5c3v1alpha1.ConditionUserReady))}
	}
	return conditions.Gate{}
}

// UserProvisioned reports whether references may use user: UserReady is
// True, or False only because the rotation budget holds a rotation
// (RotationBudgetExhausted) while the user reports a Keystone id and a
// delivered password generation, which stay valid
// (docs/reference/controlplane.md, "Rotation budget").
func UserProvisioned(user *c5c3v1alpha1.KeystoneUser) bool {
	c := meta.FindStatusCondition(user.Status.Conditions, c5c3v1alpha1.ConditionUserReady)
	switch {
	case c == nil:
		return false
	case c.Status == metav1.ConditionTrue:
		return true
	}
	return c.Reason == c5c3v1alpha1.ReasonRotationBudgetExhausted && user.Status.UserID != "" && user.Status.PasswordGeneration > 0
}

// ProjectGate checks the KeystoneProject like UserGate: ProjectNotFound,
// ControlPlaneMismatch, WaitingForProject (not ready or no
// status.projectName).
func ProjectGate(namespace string, ref c5c3v1alpha1.OrderRef, project *c5c3v1alpha1.KeystoneProject, planeNamespace, planeName string) conditions.Gate {
	if project == nil {
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonProjectNotFound, Message: fmt.Sprintf(
			"spec.projectRef names KeystoneProject %s, which does not exist in namespace %s: create it or correct spec.projectRef",
			ref.Name, namespace)}
	}
	if ns, n := PlaneKey(project.Spec.ControlPlaneRef, project.Namespace); ns != planeNamespace || n != planeName {
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonControlPlaneMismatch, Message: fmt.Sprintf(
			"KeystoneProject %s belongs to ControlPlane %s/%s, this order to %s/%s: reference a project of the same ControlPlane",
			project.Name, ns, n, planeNamespace, planeName)}
	}
	if !meta.IsStatusConditionTrue(project.Status.Conditions, c5c3v1alpha1.ConditionProjectReady) {
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForProject, Message: fmt.Sprintf(
			"KeystoneProject %s is not provisioned yet (ProjectReady: %s)", project.Name, conditionReason(project.Status.Conditions, c5c3v1alpha1.ConditionProjectReady))}
	}
	if project.Status.ProjectName == "" {
		return conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForProject, Message: fmt.Sprintf(
			"KeystoneProject %s reports no status.projectName yet", project.Name)}
	}
	return conditions.Gate{}
}

// conditionReason is the reason of condition t, or "not reported".
func conditionReason(conds []metav1.Condition, t string) string {
	if c := meta.FindStatusCondition(conds, t); c != nil {
		return c.Reason
	}
	return "not reported"
}
