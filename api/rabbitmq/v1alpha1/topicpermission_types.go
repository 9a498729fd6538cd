package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TopicPermissionSpec grants a user write and read patterns over the routing
// keys of one topic exchange in a vhost; PUT /api/topic-permissions/{vhost}/{user}
// (https://www.rabbitmq.com/docs/access-control#topic-authorisation).
// Fields, as upstream's TopicPermission (github.com/rabbitmq/messaging-topology-operator,
// api/v1beta1/topicpermission_types.go).
// +kubebuilder:validation:XValidation:rule="has(self.user) != has(self.userReference)",message="exactly one of user and userReference must be set"
//
// user, userReference, vhost and permissions.exchange are immutable, as
// upstream's webhook has them (internal/webhook/v1beta1/topicpermission_webhook.go).
// +kubebuilder:validation:XValidation:rule="(has(self.user) ? (has(oldSelf.user) ? self.user == oldSelf.user : size(self.user) == 0) : (!has(oldSelf.user) || size(oldSelf.user) == 0))",message="user is immutable: delete the TopicPermission and create it again with the new value",fieldPath=".user"
// +kubebuilder:validation:XValidation:rule="has(self.userReference) == has(oldSelf.userReference) && (!has(self.userReference) || (has(self.userReference.name) ? (has(oldSelf.userReference.name) ? self.userReference.name == oldSelf.userReference.name : size(self.userReference.name) == 0) : (!has(oldSelf.userReference.name) || size(oldSelf.userReference.name) == 0)))",message="userReference is immutable: delete the TopicPermission and create it again with the new value",fieldPath=".userReference"
// +kubebuilder:validation:XValidation:rule="self.vhost == oldSelf.vhost",message="vhost is immutable: delete the TopicPermission and create it again with the new value",fieldPath=".vhost"
// +kubebuilder:validation:XValidation:rule="self.permissions.exchange == oldSelf.permissions.exchange",message="permissions.exchange is immutable: delete the TopicPermission and create it again with the new value",fieldPath=".permissions.exchange"
type TopicPermissionSpec struct {
	// User is the RabbitMQ username.
	// +kubebuilder:validation:MinLength=1
	// +optional
	User string `json:"user,omitempty"`
	// UserReference names a User resource in the same namespace; its
	// status.username is used once it is set.
	// +optional
	UserReference *corev1.LocalObjectReference `json:"userReference,omitempty"`
	// Vhost is the virtual host the topic permissions apply to.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinLength=1
	Vhost string `json:"vhost"`
	// Permissions name the topic exchange and the two patterns.
	// +kubebuilder:validation:Required
	Permissions TopicPermissionConfig `json:"permissions"`
	// RabbitmqClusterReference names the broker; see RabbitmqClusterReference.
	// +kubebuilder:validation:Required
	RabbitmqClusterReference RabbitmqClusterReference `json:"rabbitmqClusterReference"`
	// DeletionPolicy: delete removes the topic permissions of the exchange
	// when the resource is deleted; retain leaves them. Upstream has no such
	// field and always deletes.
	// +kubebuilder:default:=delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
}

// TopicPermissionConfig are the exchange and the regular expressions over
// routing keys; an empty pattern matches nothing. Both are always sent.
type TopicPermissionConfig struct {
	// Exchange is the name of a topic exchange.
	// +kubebuilder:validation:Required
	Exchange string `json:"exchange"`
	// Read is the pattern for consuming (binding) with a routing key.
	// +optional
	Read string `json:"read,omitempty"`
	// Write is the pattern for publishing with a routing key.
	// +optional
	Write string `json:"write,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={rabbitmq,orderhub},shortName=rtperm
// +kubebuilder:printcolumn:name="Vhost",type=string,JSONPath=`.spec.vhost`
// +kubebuilder:printcolumn:name="Exchange",type=string,JSONPath=`.spec.permissions.exchange`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// TopicPermission is a user's topic permissions on one exchange of a
// RabbitMQ virtual host.
type TopicPermission struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TopicPermissionSpec `json:"spec,omitempty"`
	Status TopologyStatus      `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// TopicPermissionList is a list of TopicPermission.
type TopicPermissionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []TopicPermission `json:"items"`
}

func init() { SchemeBuilder.Register(&TopicPermission{}, &TopicPermissionList{}) }
