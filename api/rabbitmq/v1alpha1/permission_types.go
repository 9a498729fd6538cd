package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PermissionSpec grants a user configure, write and read patterns on a vhost;
// PUT /api/permissions/{vhost}/{user}.
// +kubebuilder:validation:XValidation:rule="has(self.user) != has(self.userReference)",message="exactly one of user and userReference must be set"
//
// user, userReference and vhost are immutable, as upstream's webhook has
// them: moved permissions would stay granted where they were.
// +kubebuilder:validation:XValidation:rule="(has(self.user) ? (has(oldSelf.user) ? self.user == oldSelf.user : size(self.user) == 0) : (!has(oldSelf.user) || size(oldSelf.user) == 0))",message="user is immutable: delete the Permission and create it again with the new value",fieldPath=".user"
// +kubebuilder:validation:XValidation:rule="has(self.userReference) == has(oldSelf.userReference) && (!has(self.userReference) || (has(self.userReference.name) ? (has(oldSelf.userReference.name) ? self.userReference.name == oldSelf.userReference.name : size(self.userReference.name) == 0) : (!has(oldSelf.userReference.name) || size(oldSelf.userReference.name) == 0)))",message="userReference is immutable: delete the Permission and create it again with the new value",fieldPath=".userReference"
// +kubebuilder:validation:XValidation:rule="self.vhost == oldSelf.vhost",message="vhost is immutable: delete the Permission and create it again with the new value",fieldPath=".vhost"
type PermissionSpec struct {
	// User is the RabbitMQ username.
	// +kubebuilder:validation:MinLength=1
	// +optional
	User string `json:"user,omitempty"`
	// UserReference names a User resource in the same namespace; its
	// status.username is used once it is set.
	// +optional
	UserReference *corev1.LocalObjectReference `json:"userReference,omitempty"`
	// Vhost is the virtual host the permissions apply to.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinLength=1
	Vhost string `json:"vhost"`
	// Permissions are the three regular expressions.
	// +kubebuilder:validation:Required
	Permissions VhostPermissions `json:"permissions"`
	// RabbitmqClusterReference names the broker; see RabbitmqClusterReference.
	// +kubebuilder:validation:Required
	RabbitmqClusterReference RabbitmqClusterReference `json:"rabbitmqClusterReference"`
	// DeletionPolicy: delete clears the permissions when the resource is
	// deleted; retain leaves them. Upstream has no such field and always
	// deletes.
	// +kubebuilder:default:=delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
}

// VhostPermissions are regular expressions over resource names; an empty
// string matches nothing. All three are always sent.
type VhostPermissions struct {
	// +optional
	Configure string `json:"configure,omitempty"`
	// +optional
	Write string `json:"write,omitempty"`
	// +optional
	Read string `json:"read,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={rabbitmq,orderhub},shortName=rperm
// +kubebuilder:printcolumn:name="Vhost",type=string,JSONPath=`.spec.vhost`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Permission is a user's permissions on a RabbitMQ virtual host.
type Permission struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PermissionSpec `json:"spec,omitempty"`
	Status TopologyStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// PermissionList is a list of Permission.
type PermissionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Permission `json:"items"`
}

func init() { SchemeBuilder.Register(&Permission{}, &PermissionList{}) }
