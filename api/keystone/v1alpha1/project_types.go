package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ProjectSpec declares a Keystone project within a domain.
// +kubebuilder:validation:XValidation:rule=`(has(self.domain) && self.domain.lowerAscii() != "default" ? self.domain : "") == (has(oldSelf.domain) && oldSelf.domain.lowerAscii() != "default" ? oldSelf.domain : "")`,message="spec.domain is immutable: Keystone does not move a project to another domain; create a new Project resource and delete this one"
type ProjectSpec struct {
	CommonSpec `json:",inline"`

	// Name is the Keystone project name, unique within its domain. A changed
	// name renames the project in place (docs/identity.md, "Edits").
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	Name string `json:"name"`

	// Domain is the name of the project's domain. Empty means the default
	// domain. The domain must exist in Keystone; until it does the project
	// reports ReconcileError naming it. Immutable ("" and "Default" are the
	// same domain).
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Domain string `json:"domain,omitempty"`

	// Description of the project. When set, it is applied on create and whenever it
	// differs; empty leaves the description in Keystone as it is.
	// +optional
	Description string `json:"description,omitempty"`

	// Enabled is whether the project is enabled. Default true.
	// +optional
	// +kubebuilder:default=true
	Enabled *bool `json:"enabled,omitempty"`
}

// ProjectStatus is the observed state of a Project.
type ProjectStatus struct {
	CommonStatus `json:",inline"`
	// ProjectID is the ID Keystone assigned to the project.
	// +optional
	ProjectID string `json:"projectID,omitempty"`
}

// Project is a Keystone project within a domain.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={keystone,orderhub},shortName=kproj
// +kubebuilder:printcolumn:name="Keystone Name",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Domain",type=string,JSONPath=`.spec.domain`
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.projectID`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Project struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProjectSpec   `json:"spec"`
	Status ProjectStatus `json:"status,omitempty"`
}

// ProjectList is a list of Projects.
// +kubebuilder:object:root=true
type ProjectList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Project `json:"items"`
}

func init() { SchemeBuilder.Register(&Project{}, &ProjectList{}) }
