package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CredentialRotationTarget is what a CredentialRotation rotates.
// +kubebuilder:validation:Enum=adminApplicationCredential;serviceAccountPassword
type CredentialRotationTarget string

const (
	// CredentialRotationTargetAdminApplicationCredential re-mints the plane's
	// admin application credential.
	CredentialRotationTargetAdminApplicationCredential CredentialRotationTarget = "adminApplicationCredential"
	// CredentialRotationTargetServiceAccountPassword rotates the password of a
	// ControlPlane service account or of a KeystoneService account.
	CredentialRotationTargetServiceAccountPassword CredentialRotationTarget = "serviceAccountPassword"
)

// CredentialRotationSpec requests one rotation. Upstream c5c3 field names
// (github.com/blut/c5c3-forge
// operators/c5c3/api/v1alpha1/credentialrotation_types.go) plus
// keystoneService (docs/reference/credentialrotation.md).
// +kubebuilder:validation:XValidation:rule="self.target == 'serviceAccountPassword' ? (has(self.serviceAccount) != has(self.keystoneService)) : (!has(self.serviceAccount) && !has(self.keystoneService))",message="exactly one of serviceAccount or keystoneService is required when target is serviceAccountPassword, and neither is allowed otherwise"
type CredentialRotationSpec struct {
	// What to rotate: adminApplicationCredential or serviceAccountPassword.
	// +required
	Target CredentialRotationTarget `json:"target"`

	// The ControlPlane service account (spec.korc.serviceAccounts[].name on
	// the plane in this namespace) whose password to rotate. Only with
	// target serviceAccountPassword, and never together with keystoneService.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	ServiceAccount string `json:"serviceAccount,omitempty"`

	// The KeystoneService in this namespace whose account password to rotate.
	// Its plane is resolved through its spec.controlPlaneRef, so this
	// namespace need not hold a ControlPlane. Only with target
	// serviceAccountPassword, and never together with serviceAccount.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	KeystoneService string `json:"keystoneService,omitempty"`

	// Whether this rotation bootstraps the admin application credential.
	// +optional
	Bootstrap bool `json:"bootstrap,omitempty"`

	// Request a re-mint; latched once per spec generation.
	// +optional
	ReMint bool `json:"reMint,omitempty"`

	// Deferred: accepted and ignored; setting it emits a
	// ScheduledRotationDeferred event. Days between rotations (at least 1).
	// +optional
	// +kubebuilder:validation:Minimum=1
	IntervalDays *int32 `json:"intervalDays,omitempty"`

	// Deferred: accepted and ignored. Days before expiry to rotate.
	// +optional
	// +kubebuilder:validation:Minimum=0
	PreRotationDays *int32 `json:"preRotationDays,omitempty"`

	// Deferred: accepted and ignored. Days the superseded credential stays.
	// +optional
	// +kubebuilder:validation:Minimum=0
	GracePeriodDays *int32 `json:"gracePeriodDays,omitempty"`
}

// CredentialRotationStatus is the observed state of a rotation request.
type CredentialRotationStatus struct {
	// Ready and its reason (see the CredentialRotation reason constants).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// The metadata.generation last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// The spec generation whose reMint was last acted on, so a re-mint fires
	// once per generation.
	// +optional
	LastTriggeredGeneration int64 `json:"lastTriggeredGeneration,omitempty"`
}

// CredentialRotation requests the rotation of an admin application
// credential or a service-account password.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={c5c3,orderhub},shortName=crot
// +kubebuilder:printcolumn:name="Target",type=string,JSONPath=`.spec.target`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CredentialRotation struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The requested rotation.
	// +required
	Spec CredentialRotationSpec `json:"spec"`
	// The observed rotation.
	// +optional
	Status CredentialRotationStatus `json:"status,omitzero"`
}

// CredentialRotationList is a list of CredentialRotations.
// +kubebuilder:object:root=true
type CredentialRotationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CredentialRotation `json:"items"`
}

func init() {
	SchemeBuilder.Register(&CredentialRotation{}, &CredentialRotationList{})
}
