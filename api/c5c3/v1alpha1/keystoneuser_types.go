package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KeystoneUserSpec orders one Keystone user with an operator-generated,
// OpenBao-backed password, delivered as the Secret <metadata.name>-credentials
// beside the order (docs/reference/keystoneuser.md). Every rule is a CRD
// rule: the kind has no webhook, so it works on target clusters.
// +kubebuilder:validation:XValidation:rule="has(self.userName) == has(oldSelf.userName) && (!has(self.userName) || self.userName == oldSelf.userName)",message="userName is immutable"
// +kubebuilder:validation:XValidation:rule="has(self.domainName) == has(oldSelf.domainName) && (!has(self.domainName) || self.domainName == oldSelf.domainName)",message="domainName is immutable"
// +kubebuilder:validation:XValidation:rule="has(self.defaultProjectRef) == has(oldSelf.defaultProjectRef) && (!has(self.defaultProjectRef) || self.defaultProjectRef == oldSelf.defaultProjectRef)",message="defaultProjectRef is immutable"
type KeystoneUserSpec struct {
	// The ControlPlane the user is created in. Both halves are immutable.
	// +required
	// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name",message="controlPlaneRef.name is immutable"
	// +kubebuilder:validation:XValidation:rule="(has(self.__namespace__) ? self.__namespace__ : '') == (has(oldSelf.__namespace__) ? oldSelf.__namespace__ : '')",message="controlPlaneRef.namespace is immutable"
	ControlPlaneRef ControlPlaneRefSpec `json:"controlPlaneRef"`

	// The Keystone user name (1 to 255 characters, no comma). Unset means
	// metadata.name, resolved by the reconciler. Immutable as declared.
	// +optional
	UserName OpenStackName `json:"userName,omitempty"`

	// The domain of the user (1 to 64 characters, no comma). Unset resolves
	// to the plane's spec.korc.adminCredential.domainName. Immutable as
	// declared.
	// +optional
	DomainName KeystoneName `json:"domainName,omitempty"`

	// A KeystoneProject in this namespace the delivered clouds.yaml is scoped
	// to and that becomes the user's default project. Unset delivers an
	// unscoped document. Immutable as declared.
	// +optional
	DefaultProjectRef *OrderRef `json:"defaultProjectRef,omitempty"`

	// The lowest password generation the order must hold (at least 1,
	// default 1). Raising it above status.passwordGeneration rotates the
	// password at once. It may only increase, and at most to 10^15: every
	// rotation adds one, and a generation near the int64 limit could not be
	// followed by another.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000000000000000
	// +kubebuilder:validation:XValidation:rule="self >= oldSelf",message="passwordGeneration may only increase"
	PasswordGeneration int64 `json:"passwordGeneration,omitempty"`

	// The password rotation schedule (default: off).
	// +optional
	// +kubebuilder:default={}
	Rotation *UserPasswordRotationSpec `json:"rotation,omitempty"`
}

// UserPasswordRotationSpec is the password rotation schedule of a user order.
type UserPasswordRotationSpec struct {
	// Time between two scheduled password rotations, a Go duration. 0s (the
	// default) turns the schedule off; any other value is at least 1m and at
	// most 87600h. The default is off because a password, unlike an
	// application credential, has no grace period: consumers must re-read
	// the Secret at once.
	// +optional
	// +kubebuilder:default="0s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^-?([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) == duration('0s') || duration(self) >= duration('1m')",message="rotation.interval is 0s or at least 1m"
	// +kubebuilder:validation:XValidation:rule="duration(self) <= duration('87600h')",message="rotation.interval is at most 87600h"
	Interval *metav1.Duration `json:"interval,omitempty"`
}

// KeystoneUserStatus is the observed state of a user order.
type KeystoneUserStatus struct {
	// UserReady, DeliveryReady and the aggregate Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// The metadata.generation last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// The Keystone user id; empty until the user is Available.
	// +optional
	UserID string `json:"userID,omitempty"`

	// The effective Keystone user name.
	// +optional
	UserName string `json:"userName,omitempty"`

	// The Keystone id of the user's domain.
	// +optional
	DomainID string `json:"domainID,omitempty"`

	// Generation of the password Keystone has applied and the delivered
	// Secret carries. A KeystoneApplicationCredential authenticates with the
	// password of this generation.
	// +optional
	PasswordGeneration int64 `json:"passwordGeneration,omitempty"`

	// When the password of the current generation was applied.
	// +optional
	LastPasswordRotation *metav1.Time `json:"lastPasswordRotation,omitempty"`

	// When the schedule rotates next; absent with the schedule off.
	// +optional
	NextPasswordRotation *metav1.Time `json:"nextPasswordRotation,omitempty"`

	// The delivered Secret, once it carries the current password.
	// +optional
	SecretName string `json:"secretName,omitempty"`

	// The delivered keys (clouds.yaml, password), once the Secret carries the
	// current password.
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

// KeystoneUser orders one Keystone user from a namespace a ControlPlane
// assigns; its password is delivered as the Secret <metadata.name>-credentials.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={c5c3,orderhub},shortName=ksu
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="metadata.name must be at most 63 bytes"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].reason`
// +kubebuilder:printcolumn:name="ControlPlane",type=string,JSONPath=`.spec.controlPlaneRef.name`
// +kubebuilder:printcolumn:name="User",type=string,JSONPath=`.status.userName`
// +kubebuilder:printcolumn:name="Generation",type=integer,JSONPath=`.status.passwordGeneration`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KeystoneUser struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The desired user order.
	// +required
	Spec KeystoneUserSpec `json:"spec"`
	// The observed user order.
	// +optional
	Status KeystoneUserStatus `json:"status,omitzero"`
}

// KeystoneUserList is a list of KeystoneUsers.
// +kubebuilder:object:root=true
type KeystoneUserList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KeystoneUser `json:"items"`
}

func init() {
	SchemeBuilder.Register(&KeystoneUser{}, &KeystoneUserList{})
}
