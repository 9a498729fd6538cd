package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// UserSpec is the user to declare; PUT /api/users/{username}. It carries no
// password (upstream's design): the password comes from
// importCredentialsSecret or is generated.
type UserSpec struct {
	// Tags of the user; they grant management UI and HTTP API access.
	// +optional
	Tags []UserTag `json:"tags,omitempty"`
	// RabbitmqClusterReference names the broker; see RabbitmqClusterReference.
	// +kubebuilder:validation:Required
	RabbitmqClusterReference RabbitmqClusterReference `json:"rabbitmqClusterReference"`
	// ImportCredentialsSecret names a Secret in the same namespace holding the
	// credentials: key username (required, as upstream), and passwordHash
	// (wins; an empty value makes a passwordless user) or password. A change of the Secret's content, or pointing this field at
	// another Secret, reaches the broker.
	//
	// Without it a password is generated once and written to the Secret
	// <name>-user-credentials (keys username and password, owned by the User);
	// the username is then random too, as upstream generates it.
	// +optional
	ImportCredentialsSecret *corev1.LocalObjectReference `json:"importCredentialsSecret,omitempty"`
	// Limits of the user (max-connections, max-channels). A limit left out is
	// removed from the broker.
	// +optional
	Limits *UserLimits `json:"limits,omitempty"`
	// DeletionPolicy: delete removes the user from the broker when the
	// resource is deleted; retain leaves it. Upstream has no such field and
	// always deletes.
	// +kubebuilder:default:=delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
}

// UserTag grants a level of management access.
// +kubebuilder:validation:Enum=management;policymaker;monitoring;administrator
type UserTag string

// UserLimits are the user limits; a negative value means unlimited.
type UserLimits struct {
	// Connections is max-connections.
	// +optional
	Connections *int32 `json:"connections,omitempty"`
	// Channels is max-channels.
	// +optional
	Channels *int32 `json:"channels,omitempty"`
}

// UserStatus is the observed state of a User.
type UserStatus struct {
	TopologyStatus `json:",inline"`
	// Credentials names the Secret holding the user's credentials: the
	// imported Secret, or the generated <name>-user-credentials.
	// +optional
	Credentials *corev1.LocalObjectReference `json:"credentials,omitempty"`
	// Username is the name of the user in RabbitMQ.
	// +optional
	Username string `json:"username,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={rabbitmq,orderhub},shortName=ruser
// +kubebuilder:printcolumn:name="Username",type=string,JSONPath=`.status.username`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// User is a RabbitMQ user.
type User struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   UserSpec   `json:"spec,omitempty"`
	Status UserStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// UserList is a list of User.
type UserList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []User `json:"items"`
}

func init() { SchemeBuilder.Register(&User{}, &UserList{}) }
