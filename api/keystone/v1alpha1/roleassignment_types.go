package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// RoleAssignmentSpec grants a role to exactly one subject (a user or a group)
// on exactly one scope (a project or a domain). Only the common fields may
// change: a grant has no ID, so an edited one would leave the old grant
// behind (docs/identity.md, "Edits").
// +kubebuilder:validation:XValidation:rule="has(self.user) != has(self.group)",message="exactly one of user and group must be set"
// +kubebuilder:validation:XValidation:rule="(has(self.project) ? 1 : 0) + (has(self.domain) ? 1 : 0) + (has(self.system) ? 1 : 0) == 1",message="exactly one of project, domain and system must be set"
// +kubebuilder:validation:XValidation:rule="self.role == oldSelf.role && has(self.user) == has(oldSelf.user) && (!has(self.user) || self.user == oldSelf.user) && has(self.group) == has(oldSelf.group) && (!has(self.group) || self.group == oldSelf.group) && has(self.project) == has(oldSelf.project) && (!has(self.project) || self.project == oldSelf.project) && has(self.domain) == has(oldSelf.domain) && (!has(self.domain) || self.domain == oldSelf.domain) && has(self.system) == has(oldSelf.system) && (!has(self.system) || self.system == oldSelf.system)",message="role, user, group, project, domain and system are immutable: a grant has no ID to move; create a new RoleAssignment and delete this one (with deletionPolicy delete the old grant is revoked)"
type RoleAssignmentSpec struct {
	CommonSpec `json:",inline"`

	// Role is the role to grant.
	Role RoleRef `json:"role"`

	// User is the user the role is granted to. Exactly one of user and group.
	// +optional
	User *NamedInDomain `json:"user,omitempty"`

	// Group is the group the role is granted to. Exactly one of user and group.
	// +optional
	Group *NamedInDomain `json:"group,omitempty"`

	// Project is the project the role is granted on. Exactly one of project, domain and system.
	// +optional
	Project *NamedInDomain `json:"project,omitempty"`

	// Domain is the domain the role is granted on. Exactly one of project, domain and system.
	// +optional
	Domain *DomainRef `json:"domain,omitempty"`

	// System grants the role on the system scope (PUT
	// /v3/system/{users|groups}/{id}/roles/{role}): Keystone's one system,
	// "all". Exactly one of project, domain and system.
	// +optional
	// +kubebuilder:validation:Enum=all
	System string `json:"system,omitempty"`
}

// RoleAssignmentStatus is the observed state of a RoleAssignment. A grant has
// no ID, so there is none to record.
type RoleAssignmentStatus struct {
	CommonStatus `json:",inline"`
}

// RoleAssignment grants a role to a user or a group on a project or a domain.
// Whoever may create one can grant any role with the controller's admin
// credentials: restrict write access to it like the admin Secret itself.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={keystone,orderhub},shortName=kra
// +kubebuilder:printcolumn:name="Role",type=string,JSONPath=`.spec.role.name`
// +kubebuilder:printcolumn:name="User",type=string,JSONPath=`.spec.user.name`
// +kubebuilder:printcolumn:name="Group",type=string,JSONPath=`.spec.group.name`,priority=1
// +kubebuilder:printcolumn:name="Project",type=string,JSONPath=`.spec.project.name`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RoleAssignment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RoleAssignmentSpec   `json:"spec"`
	Status RoleAssignmentStatus `json:"status,omitempty"`
}

// RoleAssignmentList is a list of RoleAssignments.
// +kubebuilder:object:root=true
type RoleAssignmentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RoleAssignment `json:"items"`
}

func init() { SchemeBuilder.Register(&RoleAssignment{}, &RoleAssignmentList{}) }
