package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// RoleSpec declares a Keystone role, global or domain-specific.
// +kubebuilder:validation:XValidation:rule=`(has(self.domain) ? self.domain : "") == (has(oldSelf.domain) ? oldSelf.domain : "")`,message="spec.domain is immutable: Keystone does not move a role between domains or make a global role domain-specific; create a new Role resource and delete this one"
type RoleSpec struct {
	CommonSpec `json:",inline"`

	// Name is the Keystone role name. A changed name renames the role in
	// place, keeping its ID and grants (docs/identity.md, "Edits").
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	Name string `json:"name"`

	// Domain makes the role domain-specific: the name of its domain. Empty
	// means a global role. Immutable.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Domain string `json:"domain,omitempty"`

	// Description of the role. When set, it is applied on create and whenever it
	// differs; empty leaves the description in Keystone as it is.
	// +optional
	Description string `json:"description,omitempty"`
}

// RoleStatus is the observed state of a Role.
type RoleStatus struct {
	CommonStatus `json:",inline"`
	// RoleID is the ID Keystone assigned to the role.
	// +optional
	RoleID string `json:"roleID,omitempty"`
}

// Role is a Keystone role. Address it as roles.keystone.osh.openstack.org,
// because "roles" is also an RBAC resource.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={keystone,orderhub},shortName=krole
// +kubebuilder:printcolumn:name="Keystone Name",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.roleID`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Role struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RoleSpec   `json:"spec"`
	Status RoleStatus `json:"status,omitempty"`
}

// RoleList is a list of Roles.
// +kubebuilder:object:root=true
type RoleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Role `json:"items"`
}

func init() { SchemeBuilder.Register(&Role{}, &RoleList{}) }
