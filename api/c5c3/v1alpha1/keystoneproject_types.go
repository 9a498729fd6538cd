package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KeystoneProjectSpec orders one Keystone project, created and owned by the
// order (docs/reference/keystoneproject.md). Every rule is a CRD rule: the
// kind has no webhook, so it works on target clusters.
// +kubebuilder:validation:XValidation:rule="has(self.projectName) == has(oldSelf.projectName) && (!has(self.projectName) || self.projectName == oldSelf.projectName)",message="projectName is immutable"
// +kubebuilder:validation:XValidation:rule="has(self.domainName) == has(oldSelf.domainName) && (!has(self.domainName) || self.domainName == oldSelf.domainName)",message="domainName is immutable"
type KeystoneProjectSpec struct {
	// The ControlPlane the project is created in. Both halves are immutable.
	// +required
	// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name",message="controlPlaneRef.name is immutable"
	// +kubebuilder:validation:XValidation:rule="(has(self.__namespace__) ? self.__namespace__ : '') == (has(oldSelf.__namespace__) ? oldSelf.__namespace__ : '')",message="controlPlaneRef.namespace is immutable"
	ControlPlaneRef ControlPlaneRefSpec `json:"controlPlaneRef"`

	// The Keystone project name (1 to 64 characters, no comma; K-ORC's
	// KeystoneName). Unset means metadata.name, resolved by the reconciler.
	// Immutable as declared.
	// +optional
	ProjectName KeystoneName `json:"projectName,omitempty"`

	// The domain of the project (1 to 64 characters, no comma). Unset
	// resolves to the plane's spec.korc.adminCredential.domainName. Immutable
	// as declared.
	// +optional
	DomainName KeystoneName `json:"domainName,omitempty"`

	// A description written to Keystone (at most 255 characters). Mutable.
	// +optional
	// +kubebuilder:validation:MaxLength=255
	Description string `json:"description,omitempty"`
}

// KeystoneProjectStatus is the observed state of a project order.
type KeystoneProjectStatus struct {
	// ProjectReady and the aggregate Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// The metadata.generation last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// The Keystone project id; empty until the project is Available.
	// +optional
	ProjectID string `json:"projectID,omitempty"`

	// The effective Keystone project name, once the project is Available.
	// A KeystoneApplicationCredential waits for it (WaitingForProject).
	// +optional
	ProjectName string `json:"projectName,omitempty"`

	// The Keystone id of the project's domain.
	// +optional
	DomainID string `json:"domainID,omitempty"`
}

// KeystoneProject orders one Keystone project from a namespace a
// ControlPlane assigns.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={c5c3,orderhub},shortName=ksp
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="metadata.name must be at most 63 bytes"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].reason`
// +kubebuilder:printcolumn:name="ControlPlane",type=string,JSONPath=`.spec.controlPlaneRef.name`
// +kubebuilder:printcolumn:name="Project",type=string,JSONPath=`.status.projectName`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KeystoneProject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The desired project order.
	// +required
	Spec KeystoneProjectSpec `json:"spec"`
	// The observed project order.
	// +optional
	Status KeystoneProjectStatus `json:"status,omitzero"`
}

// KeystoneProjectList is a list of KeystoneProjects.
// +kubebuilder:object:root=true
type KeystoneProjectList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KeystoneProject `json:"items"`
}

func init() {
	SchemeBuilder.Register(&KeystoneProject{}, &KeystoneProjectList{})
}
