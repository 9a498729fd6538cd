package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// VhostSpec is the virtual host to declare; PUT /api/vhosts/{name}.
//
// name is immutable, as upstream's webhook has it: a renamed vhost would
// leave the old one in the broker, tracked by nothing.
// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name",message="name is immutable: delete the Vhost and create it again with the new value",fieldPath=".name"
type VhostSpec struct {
	// Name of the virtual host in RabbitMQ; "/" is the default vhost.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Tracing enables message tracing (firehose) in the vhost.
	// +optional
	Tracing bool `json:"tracing,omitempty"`
	// Tags of the vhost, sent as a comma-separated list.
	// +optional
	Tags []string `json:"tags,omitempty"`
	// DefaultQueueType is the queue type of queues declared without one.
	// Needs a broker that supports it.
	// +kubebuilder:validation:Enum=quorum;classic;stream
	// +optional
	DefaultQueueType string `json:"defaultQueueType,omitempty"`
	// RabbitmqClusterReference names the broker; see RabbitmqClusterReference.
	// +kubebuilder:validation:Required
	RabbitmqClusterReference RabbitmqClusterReference `json:"rabbitmqClusterReference"`
	// DeletionPolicy: delete removes the vhost and every message in it when the
	// resource is deleted; retain leaves it.
	// +kubebuilder:default:=delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
	// Limits of the vhost (max-connections, max-queues). A limit left out is
	// removed from the broker.
	// +optional
	Limits *VhostLimits `json:"limits,omitempty"`
}

// VhostLimits are the vhost limits; a negative value means unlimited.
type VhostLimits struct {
	// Connections is max-connections.
	// +optional
	Connections *int32 `json:"connections,omitempty"`
	// Queues is max-queues.
	// +optional
	Queues *int32 `json:"queues,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={rabbitmq,orderhub},shortName=rvhost
// +kubebuilder:printcolumn:name="Vhost",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Vhost is a RabbitMQ virtual host.
type Vhost struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   VhostSpec      `json:"spec,omitempty"`
	Status TopologyStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// VhostList is a list of Vhost.
type VhostList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Vhost `json:"items"`
}

func init() { SchemeBuilder.Register(&Vhost{}, &VhostList{}) }
