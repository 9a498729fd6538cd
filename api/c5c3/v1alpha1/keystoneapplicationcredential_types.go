package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KeystoneApplicationCredentialSpec orders one rotating Keystone application
// credential for an ordered KeystoneUser on an ordered KeystoneProject
// (docs/reference/keystoneapplicationcredential.md,
// "KeystoneApplicationCredentialSpec"). Every rule is a CRD rule: the kind has
// no webhook, because a target cluster runs none.
type KeystoneApplicationCredentialSpec struct {
	// The ControlPlane the credential is created in. Both halves are
	// immutable.
	// +required
	// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name",message="controlPlaneRef.name is immutable"
	// +kubebuilder:validation:XValidation:rule="(has(self.__namespace__) ? self.__namespace__ : '') == (has(oldSelf.__namespace__) ? oldSelf.__namespace__ : '')",message="controlPlaneRef.namespace is immutable"
	ControlPlaneRef ControlPlaneRefSpec `json:"controlPlaneRef"`

	// The KeystoneUser in this namespace the credential belongs to.
	// Immutable.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="userRef is immutable"
	UserRef OrderRef `json:"userRef"`

	// The KeystoneProject in this namespace the credential is scoped to.
	// Immutable.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="projectRef is immutable"
	ProjectRef OrderRef `json:"projectRef"`

	// The lowest credential generation the order must hold (at least 1,
	// default 1). Raising it above status.credentialGeneration rotates at
	// once. It may only increase, and at most to 10^15: every rotation
	// adds one, and a generation near the int64 limit could not be followed
	// by another.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000000000000000
	// +kubebuilder:validation:XValidation:rule="self >= oldSelf",message="credentialGeneration may only increase"
	CredentialGeneration int64 `json:"credentialGeneration,omitempty"`

	// The rotation schedule (default: every 720h, 24h grace).
	// +optional
	// +kubebuilder:default={}
	Rotation *ApplicationCredentialRotationSpec `json:"rotation,omitempty"`

	// The Keystone roles (by name) the credential carries, each one the
	// user holds on the project. Absent: every role the user holds there.
	// A change rotates to a credential with the new roles.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=255
	// +kubebuilder:validation:items:XValidation:rule="!self.contains(',')",message="a role name has no comma"
	Roles []string `json:"roles,omitempty"`

	// The requests the credential may make, each service type, method and
	// path (Keystone access rules). Absent: any request its roles allow. A
	// change rotates to a credential with the new rules.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	AccessRules []ApplicationCredentialAccessRule `json:"accessRules,omitempty"`
}

// ApplicationCredentialAccessRule is one Keystone access rule
// (docs/reference/keystoneapplicationcredential.md,
// "KeystoneApplicationCredentialSpec", accessRules; the bounds are Keystone's
// application credential schema).
type ApplicationCredentialAccessRule struct {
	// The service type in the Keystone catalog (e.g. compute); exactly one
	// catalog service must have it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9-]+$`
	Service string `json:"service"`

	// The HTTP method.
	// +required
	// +kubebuilder:validation:Enum=GET;HEAD;POST;PUT;PATCH;DELETE
	Method string `json:"method"`

	// The request path, starting with "/"; Keystone matches "*" as one path
	// segment and "**" as any rest.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=225
	// +kubebuilder:validation:Pattern=`^/`
	Path string `json:"path"`
}

// ApplicationCredentialRotationSpec is the rotation schedule of an
// application credential (docs/reference/keystoneapplicationcredential.md,
// "KeystoneApplicationCredentialSpec", rotation.interval and
// rotation.gracePeriod).
// +kubebuilder:validation:XValidation:rule="!has(self.interval) || !has(self.gracePeriod) || duration(self.interval) == duration('0s') || duration(self.gracePeriod) < duration(self.interval)",message="rotation.gracePeriod must be shorter than rotation.interval"
type ApplicationCredentialRotationSpec struct {
	// Time between two scheduled rotations, a Go duration (default 720h).
	// 0s turns the schedule off; any other value is at least 1m and at most
	// 87600h.
	// +optional
	// +kubebuilder:default="720h"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^-?([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) == duration('0s') || duration(self) >= duration('1m')",message="rotation.interval is 0s or at least 1m"
	// +kubebuilder:validation:XValidation:rule="duration(self) <= duration('87600h')",message="rotation.interval is at most 87600h"
	Interval *metav1.Duration `json:"interval,omitempty"`

	// How long the superseded credential stays in Keystone after the
	// delivered Secret switched, a Go duration (default 24h). Not negative,
	// and shorter than a non-zero interval.
	// +optional
	// +kubebuilder:default="24h"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^-?([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s')",message="rotation.gracePeriod is not negative"
	GracePeriod *metav1.Duration `json:"gracePeriod,omitempty"`
}

// KeystoneApplicationCredentialStatus is the observed state of the order
// (docs/reference/keystoneapplicationcredential.md, "Status").
type KeystoneApplicationCredentialStatus struct {
	// CredentialReady, DeliveryReady and the aggregate Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// The metadata.generation last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// The Keystone id of the credential the delivered Secret carries.
	// +optional
	CredentialID string `json:"credentialID,omitempty"`

	// The generation of that credential.
	// +optional
	CredentialGeneration int64 `json:"credentialGeneration,omitempty"`

	// When that credential expires in Keystone; absent for one created with
	// the schedule off.
	// +optional
	CredentialExpiresAt *metav1.Time `json:"credentialExpiresAt,omitempty"`

	// When that credential became the delivered one.
	// +optional
	LastRotation *metav1.Time `json:"lastRotation,omitempty"`

	// When the schedule rotates next; absent with the schedule off.
	// +optional
	NextRotation *metav1.Time `json:"nextRotation,omitempty"`

	// The Keystone id of the superseded credential, from the switch until
	// it is confirmed gone from Keystone after its grace period.
	// +optional
	PreviousCredentialID string `json:"previousCredentialID,omitempty"`

	// The generation of the superseded credential, while
	// previousCredentialID is set.
	// +optional
	PreviousCredentialGeneration int64 `json:"previousCredentialGeneration,omitempty"`

	// When the superseded credential is deleted, while previousCredentialID
	// is set.
	// +optional
	PreviousCredentialDeleteAt *metav1.Time `json:"previousCredentialDeleteAt,omitempty"`

	// The delivered Secret, once it carries the current credential.
	// +optional
	SecretName string `json:"secretName,omitempty"`

	// The delivered keys (clouds.yaml, application_credential_id,
	// application_credential_secret), once the Secret carries the current
	// credential.
	// +optional
	// +listType=atomic
	SecretKeys []string `json:"secretKeys,omitempty"`
	// The workloads in the Secret's namespace that consume the delivered
	// Secret and where each is in its rollout to the current generation
	// (docs/reference/consumers.md); at most 32 are listed.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Consumers []ConsumerStatus `json:"consumers,omitempty"`
}

// KeystoneApplicationCredential orders one rotating Keystone application
// credential, delivered as the Secret <metadata.name>-credentials beside the
// order.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={c5c3,orderhub},shortName=ksac
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="metadata.name must be at most 63 bytes"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].reason`
// +kubebuilder:printcolumn:name="ControlPlane",type=string,JSONPath=`.spec.controlPlaneRef.name`
// +kubebuilder:printcolumn:name="User",type=string,JSONPath=`.spec.userRef.name`
// +kubebuilder:printcolumn:name="Project",type=string,JSONPath=`.spec.projectRef.name`
// +kubebuilder:printcolumn:name="Generation",type=integer,JSONPath=`.status.credentialGeneration`
// +kubebuilder:printcolumn:name="NextRotation",type=string,JSONPath=`.status.nextRotation`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KeystoneApplicationCredential struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The desired credential order.
	// +required
	Spec KeystoneApplicationCredentialSpec `json:"spec"`
	// The observed credential order.
	// +optional
	Status KeystoneApplicationCredentialStatus `json:"status,omitzero"`
}

// KeystoneApplicationCredentialList is a list of KeystoneApplicationCredentials.
// +kubebuilder:object:root=true
type KeystoneApplicationCredentialList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KeystoneApplicationCredential `json:"items"`
}

func init() {
	SchemeBuilder.Register(&KeystoneApplicationCredential{}, &KeystoneApplicationCredentialList{})
}
