package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ShovelSpec is a dynamic shovel; PUT /api/parameters/shovel/{vhost}/{name}
// (https://www.rabbitmq.com/docs/shovel-dynamic; the broker needs the
// rabbitmq_shovel plugin). Fields, defaults and enums as upstream's Shovel
// (github.com/rabbitmq/messaging-topology-operator, api/v1beta1/shovel_types.go);
// each maps to the shovel parameter key in its json tag's spelling.
//
// name and vhost are immutable, as upstream's webhook has them
// (internal/webhook/v1beta1/shovel_webhook.go), as is its amqp10 rule.
// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name",message="name is immutable: delete the Shovel and create it again with the new value",fieldPath=".name"
// +kubebuilder:validation:XValidation:rule="(has(self.vhost) ? (has(oldSelf.vhost) ? self.vhost == oldSelf.vhost : size(self.vhost) == 0) : (!has(oldSelf.vhost) || size(oldSelf.vhost) == 0))",message="vhost is immutable: delete the Shovel and create it again with the new value",fieldPath=".vhost"
// +kubebuilder:validation:XValidation:rule="!has(self.srcProtocol) || self.srcProtocol != 'amqp10' || (has(self.srcAddress) && size(self.srcAddress) > 0)",message="srcAddress is required when srcProtocol is amqp10",fieldPath=".srcAddress"
// +kubebuilder:validation:XValidation:rule="!has(self.destProtocol) || self.destProtocol != 'amqp10' || (has(self.destAddress) && size(self.destAddress) > 0)",message="destAddress is required when destProtocol is amqp10",fieldPath=".destAddress"
type ShovelSpec struct {
	// Name of the shovel.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Vhost of the shovel.
	// +kubebuilder:default:=/
	// +optional
	Vhost string `json:"vhost,omitempty"`
	// RabbitmqClusterReference names the broker; see RabbitmqClusterReference.
	// +kubebuilder:validation:Required
	RabbitmqClusterReference RabbitmqClusterReference `json:"rabbitmqClusterReference"`
	// UriSecret names a Secret of the namespace with the keys srcUri and
	// destUri: AMQP URIs, several separated by commas.
	// +kubebuilder:validation:Required
	URISecret *corev1.LocalObjectReference `json:"uriSecret"`
	// +kubebuilder:validation:Enum=on-confirm;on-publish;no-ack
	// +optional
	AckMode string `json:"ackMode,omitempty"`
	// +optional
	PrefetchCount int `json:"prefetchCount,omitempty"`
	// +optional
	ReconnectDelay int `json:"reconnectDelay,omitempty"`
	// +optional
	AddForwardHeaders bool `json:"addForwardHeaders,omitempty"`
	// +optional
	DeleteAfter string `json:"deleteAfter,omitempty"`
	// +optional
	SourceDeleteAfter string `json:"srcDeleteAfter,omitempty"`
	// +optional
	SourcePrefetchCount int `json:"srcPrefetchCount,omitempty"`
	// +optional
	DestinationAddForwardHeaders bool `json:"destAddForwardHeaders,omitempty"`
	// +optional
	DestinationAddTimestampHeader bool `json:"destAddTimestampHeader,omitempty"`
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	SourceQueueArgs *runtime.RawExtension `json:"srcQueueArgs,omitempty"`
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	DestinationQueueArgs *runtime.RawExtension `json:"destQueueArgs,omitempty"`
	// +kubebuilder:validation:Enum=amqp091;amqp10
	// +optional
	DestinationProtocol string `json:"destProtocol,omitempty"`
	// +optional
	DestinationQueue string `json:"destQueue,omitempty"`
	// +optional
	DestinationExchange string `json:"destExchange,omitempty"`
	// +optional
	DestinationExchangeKey string `json:"destExchangeKey,omitempty"`
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	DestinationPublishProperties *runtime.RawExtension `json:"destPublishProperties,omitempty"`
	// +optional
	DestinationAddress string `json:"destAddress,omitempty"`
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	DestinationApplicationProperties *runtime.RawExtension `json:"destApplicationProperties,omitempty"`
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	DestinationProperties *runtime.RawExtension `json:"destProperties,omitempty"`
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	DestinationMessageAnnotations *runtime.RawExtension `json:"destMessageAnnotations,omitempty"`
	// +kubebuilder:validation:Enum=amqp091;amqp10
	// +optional
	SourceProtocol string `json:"srcProtocol,omitempty"`
	// +optional
	SourceQueue string `json:"srcQueue,omitempty"`
	// +optional
	SourceExchange string `json:"srcExchange,omitempty"`
	// +optional
	SourceExchangeKey string `json:"srcExchangeKey,omitempty"`
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	SourceConsumerArgs *runtime.RawExtension `json:"srcConsumerArgs,omitempty"`
	// +optional
	SourceAddress string `json:"srcAddress,omitempty"`
	// DeletionPolicy: delete removes the shovel when the resource is
	// deleted; retain leaves it (upstream's field).
	// +kubebuilder:default:=delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={rabbitmq,orderhub},shortName=rshovel
// +kubebuilder:printcolumn:name="Shovel",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Vhost",type=string,JSONPath=`.spec.vhost`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Shovel is a RabbitMQ dynamic shovel.
type Shovel struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ShovelSpec     `json:"spec,omitempty"`
	Status TopologyStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ShovelList is a list of Shovel.
type ShovelList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Shovel `json:"items"`
}

func init() { SchemeBuilder.Register(&Shovel{}, &ShovelList{}) }
