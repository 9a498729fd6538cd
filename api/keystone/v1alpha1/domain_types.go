package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// DomainSpec declares a Keystone domain.
// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name || (self.name.lowerAscii() != 'default' && oldSelf.name.lowerAscii() != 'default')",message="spec.name cannot change to or from the default domain, which is never created, renamed or deleted: create a new Domain resource and delete this one"
type DomainSpec struct {
	CommonSpec `json:",inline"`

	// Name is the Keystone domain name. "Default" in any letter case is the
	// default domain (id "default"), which always exists and is never created,
	// changed or deleted. A changed name renames the domain in place (PATCH
	// /v3/domains/{id} with the ID in status.domainID; docs/identity.md,
	// "Edits"); a change to or from the default domain is refused.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	Name string `json:"name"`

	// Description of the domain. When set, it is applied on create and whenever it
	// differs; empty leaves the description in Keystone as it is.
	// +optional
	Description string `json:"description,omitempty"`

	// Enabled is whether the domain is enabled. Default true.
	// +optional
	// +kubebuilder:default=true
	Enabled *bool `json:"enabled,omitempty"`
}

// DomainStatus is the observed state of a Domain.
type DomainStatus struct {
	CommonStatus `json:",inline"`
	// DomainID is the ID Keystone assigned to the domain.
	// +optional
	DomainID string `json:"domainID,omitempty"`
}

// Domain is a Keystone domain. Deleting it with deletionPolicy delete first
// disables the domain, as Keystone requires.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={keystone,orderhub},shortName=kdom
// +kubebuilder:printcolumn:name="Keystone Name",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.domainID`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Domain struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DomainSpec   `json:"spec"`
	Status DomainStatus `json:"status,omitempty"`
}

// DomainList is a list of Domains.
// +kubebuilder:object:root=true
type DomainList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Domain `json:"items"`
}

func init() { SchemeBuilder.Register(&Domain{}, &DomainList{}) }
