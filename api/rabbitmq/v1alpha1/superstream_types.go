package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SuperStreamSpec is a super stream: a direct exchange named after the
// resource (metadata.name, as upstream names it) and, per routing key, a
// stream <metadata.name>-<routingKey> bound to it with that routing key and
// the argument x-stream-partition-order
// (https://www.rabbitmq.com/docs/streams#super-streams). Fields and defaults
// as upstream's SuperStream (github.com/rabbitmq/messaging-topology-operator,
// api/v1alpha1/superstream_types.go); the controller writes them as
// Exchange, Queue and Binding resources owned by the SuperStream, as
// upstream's internal/managedresource does.
//
// name and vhost are immutable, partitions may only grow and routingKeys
// may only be appended to, as upstream's webhook has them
// (internal/webhook/v1alpha1/superstream_webhook.go); upstream's reconciler
// refuses routing keys that do not match the partition count, here it is
// refused at admission.
// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name",message="name is immutable: delete the SuperStream and create it again with the new value",fieldPath=".name"
// +kubebuilder:validation:XValidation:rule="(has(self.vhost) ? (has(oldSelf.vhost) ? self.vhost == oldSelf.vhost : size(self.vhost) == 0) : (!has(oldSelf.vhost) || size(oldSelf.vhost) == 0))",message="vhost is immutable: delete the SuperStream and create it again with the new value",fieldPath=".vhost"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.partitions) || (has(self.partitions) && self.partitions >= oldSelf.partitions)",message="partitions may only increase: a super stream cannot be scaled down",fieldPath=".partitions"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.routingKeys) ? !has(self.routingKeys) : (has(self.routingKeys) && size(self.routingKeys) >= size(oldSelf.routingKeys) && self.routingKeys.slice(0, size(oldSelf.routingKeys)) == oldSelf.routingKeys)",message="routingKeys may only be appended to",fieldPath=".routingKeys"
// +kubebuilder:validation:XValidation:rule="!has(self.routingKeys) || size(self.routingKeys) == (has(self.partitions) ? self.partitions : 3)",message="the number of routingKeys must match partitions",fieldPath=".routingKeys"
type SuperStreamSpec struct {
	// Name of the super stream. Required and immutable as upstream's; the
	// broker objects are named after metadata.name, as upstream names them.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Vhost of the super stream.
	// +kubebuilder:default:=/
	// +optional
	Vhost string `json:"vhost,omitempty"`
	// Partitions is the number of partition streams.
	// +kubebuilder:default:=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +optional
	Partitions int `json:"partitions,omitempty"`
	// RoutingKeys of the partitions, one per partition; unset means the
	// partition indexes 0, 1, ….
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=200
	// +optional
	RoutingKeys []string `json:"routingKeys,omitempty"`
	// RabbitmqClusterReference names the broker; see RabbitmqClusterReference.
	// +kubebuilder:validation:Required
	RabbitmqClusterReference RabbitmqClusterReference `json:"rabbitmqClusterReference"`
}

// SuperStreamStatus is the observed state of a SuperStream.
type SuperStreamStatus struct {
	TopologyStatus `json:",inline"`
	// Partitions are the names of the partition streams, in partition order.
	// +optional
	Partitions []string `json:"partitions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={rabbitmq,orderhub},shortName=rsstream
// +kubebuilder:printcolumn:name="Vhost",type=string,JSONPath=`.spec.vhost`
// +kubebuilder:printcolumn:name="Partitions",type=integer,JSONPath=`.spec.partitions`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// SuperStream is a RabbitMQ super stream, written as Exchange, Queue and
// Binding resources it owns.
type SuperStream struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   SuperStreamSpec   `json:"spec,omitempty"`
	Status SuperStreamStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// SuperStreamList is a list of SuperStream.
type SuperStreamList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SuperStream `json:"items"`
}

func init() { SchemeBuilder.Register(&SuperStream{}, &SuperStreamList{}) }
