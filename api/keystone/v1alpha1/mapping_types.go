package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MappingSpec declares a Keystone federation mapping, created with
// PUT /v3/OS-FEDERATION/mappings/{id} (docs/identity.md, "Federation").
// +kubebuilder:validation:XValidation:rule=`(has(self.id) ? self.id : "") == (has(oldSelf.id) ? oldSelf.id : "")`,message="spec.id is immutable: it is the mapping's ID in Keystone; create a new Mapping resource and delete this one"
type MappingSpec struct {
	CommonSpec `json:",inline"`

	// ID is the mapping's ID in Keystone, chosen here; a Protocol names it.
	// Empty means metadata.name. Immutable.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9_-]+$`
	ID string `json:"id,omitempty"`

	// Rules are the mapping rules in Keystone's own JSON dialect (each a
	// "local" and a "remote" list; docs/identity.md, "Mapping"), passed to
	// Keystone as they are and validated by it. The list is the whole
	// mapping: rules changed in Keystone are replaced by these.
	// +kubebuilder:validation:MinItems=1
	Rules []apiextensionsv1.JSON `json:"rules"`
}

// MappingStatus is the observed state of a Mapping. It records no ID: the
// ID is the spec's.
type MappingStatus struct {
	CommonStatus `json:",inline"`
}

// Mapping is a Keystone federation mapping: the rules that turn an identity
// provider's assertion into a local user and its groups.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={keystone,orderhub},shortName=kmap
// +kubebuilder:validation:XValidation:rule=`has(self.spec.id) || self.metadata.name.matches('^[a-zA-Z0-9_-]+$')`,message="metadata.name is not a Keystone mapping ID (letters, digits, '-' and '_' only): set spec.id"
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.spec.id`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Mapping struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MappingSpec   `json:"spec"`
	Status MappingStatus `json:"status,omitempty"`
}

// MappingList is a list of Mappings.
// +kubebuilder:object:root=true
type MappingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Mapping `json:"items"`
}

func init() { SchemeBuilder.Register(&Mapping{}, &MappingList{}) }
