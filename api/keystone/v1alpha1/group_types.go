package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// GroupSpec declares a Keystone group. Membership is not declared here: in a
// federated deployment a Keystone mapping decides it (docs/identity.md, "Common
// fields").
// +kubebuilder:validation:XValidation:rule=`(has(self.domain) && self.domain.lowerAscii() != "default" ? self.domain : "") == (has(oldSelf.domain) && oldSelf.domain.lowerAscii() != "default" ? oldSelf.domain : "")`,message="spec.domain is immutable: Keystone does not move a group to another domain; create a new Group resource and delete this one"
type GroupSpec struct {
	CommonSpec `json:",inline"`

	// Name is the Keystone group name, unique within its domain. A changed
	// name renames the group in place (docs/identity.md, "Edits").
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	Name string `json:"name"`

	// Domain is the name of the group's domain. Empty means the default domain.
	// Immutable ("" and "Default" are the same domain).
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Domain string `json:"domain,omitempty"`

	// Description of the group. When set, it is applied on create and whenever it
	// differs; empty leaves the description in Keystone as it is.
	// +optional
	Description string `json:"description,omitempty"`
}

// GroupStatus is the observed state of a Group.
type GroupStatus struct {
	CommonStatus `json:",inline"`
	// GroupID is the ID Keystone assigned to the group.
	// +optional
	GroupID string `json:"groupID,omitempty"`
}

// Group is a Keystone group of users.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={keystone,orderhub},shortName=kgrp
// +kubebuilder:printcolumn:name="Keystone Name",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Domain",type=string,JSONPath=`.spec.domain`
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.groupID`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Group struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GroupSpec   `json:"spec"`
	Status GroupStatus `json:"status,omitempty"`
}

// GroupList is a list of Groups.
// +kubebuilder:object:root=true
type GroupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Group `json:"items"`
}

func init() { SchemeBuilder.Register(&Group{}, &GroupList{}) }
