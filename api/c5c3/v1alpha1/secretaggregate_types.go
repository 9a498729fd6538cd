package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SecretAggregateSpec names the Secret an aggregate is assembled into. Types
// only: no controller reads it, as upstream (github.com/blut/c5c3-forge
// operators/c5c3/api/v1alpha1/secretaggregate_types.go).
type SecretAggregateSpec struct {
	// The name of the assembled Secret in this namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	TargetSecretName string `json:"targetSecretName"`
}

// SecretAggregateStatus is the observed state of an aggregate.
type SecretAggregateStatus struct {
	// Conditions of the aggregate.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// SecretAggregate is registered for manifest portability with the upstream
// c5c3 API; orderhub runs no controller for it.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={c5c3,orderhub},shortName=sagg
type SecretAggregate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The desired aggregate.
	// +required
	Spec SecretAggregateSpec `json:"spec"`
	// The observed aggregate.
	// +optional
	Status SecretAggregateStatus `json:"status,omitzero"`
}

// SecretAggregateList is a list of SecretAggregates.
// +kubebuilder:object:root=true
type SecretAggregateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SecretAggregate `json:"items"`
}

func init() {
	SchemeBuilder.Register(&SecretAggregate{}, &SecretAggregateList{})
}
