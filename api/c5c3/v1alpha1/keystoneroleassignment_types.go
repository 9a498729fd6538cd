package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KeystoneRoleAssignmentSpec orders one role for an ordered KeystoneUser on an
// ordered KeystoneProject (docs/reference/keystoneroleassignment.md). The role
// must be listed in the allowedRoles of the namespaceAssignments entry for
// this order's namespace and cluster. Every field is immutable. Every rule is
// a CRD rule: the kind has no webhook, so it works on target clusters.
type KeystoneRoleAssignmentSpec struct {
	// The ControlPlane the assignment is made in. Both halves are immutable.
	// +required
	// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name",message="controlPlaneRef.name is immutable"
	// +kubebuilder:validation:XValidation:rule="(has(self.__namespace__) ? self.__namespace__ : '') == (has(oldSelf.__namespace__) ? oldSelf.__namespace__ : '')",message="controlPlaneRef.namespace is immutable"
	ControlPlaneRef ControlPlaneRefSpec `json:"controlPlaneRef"`

	// The KeystoneUser in this namespace that receives the role. Immutable.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="userRef is immutable"
	UserRef OrderRef `json:"userRef"`

	// The KeystoneProject in this namespace the role is assigned on.
	// Immutable.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="projectRef is immutable"
	ProjectRef OrderRef `json:"projectRef"`

	// The Keystone role name (1 to 64 characters, no comma). Roles are
	// global and imported, never created. Immutable.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="role is immutable"
	Role KeystoneName `json:"role"`
}

// KeystoneRoleAssignmentStatus is the observed state of an assignment order.
type KeystoneRoleAssignmentStatus struct {
	// AssignmentReady and the aggregate Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// The metadata.generation last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// The Keystone role id, set once the role is assigned in Keystone and kept
	// while the assignment exists there, also while the order is frozen. A
	// KeystoneApplicationCredential gates on it (NoRoleOnProject).
	// +optional
	RoleID string `json:"roleID,omitempty"`

	// The Keystone id of the user the role is assigned to.
	// +optional
	UserID string `json:"userID,omitempty"`

	// The Keystone id of the project the role is assigned on.
	// +optional
	ProjectID string `json:"projectID,omitempty"`
}

// KeystoneRoleAssignment orders one Keystone role assignment (user, project,
// role) from a namespace a ControlPlane assigns.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={c5c3,orderhub},shortName=ksra
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="metadata.name must be at most 63 bytes"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].reason`
// +kubebuilder:printcolumn:name="ControlPlane",type=string,JSONPath=`.spec.controlPlaneRef.name`
// +kubebuilder:printcolumn:name="User",type=string,JSONPath=`.spec.userRef.name`
// +kubebuilder:printcolumn:name="Project",type=string,JSONPath=`.spec.projectRef.name`
// +kubebuilder:printcolumn:name="Role",type=string,JSONPath=`.spec.role`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KeystoneRoleAssignment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The desired assignment order.
	// +required
	Spec KeystoneRoleAssignmentSpec `json:"spec"`
	// The observed assignment order.
	// +optional
	Status KeystoneRoleAssignmentStatus `json:"status,omitzero"`
}

// KeystoneRoleAssignmentList is a list of KeystoneRoleAssignments.
// +kubebuilder:object:root=true
type KeystoneRoleAssignmentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KeystoneRoleAssignment `json:"items"`
}

func init() {
	SchemeBuilder.Register(&KeystoneRoleAssignment{}, &KeystoneRoleAssignmentList{})
}
