package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// BindingSpec is a binding from an exchange to a queue or exchange;
// POST /api/bindings/{vhost}/e/{source}/{q|e}/{destination}, sent only when
// no binding between the two has the same routing key and arguments.
//
// Every field that identifies the binding is immutable, as upstream's webhook
// has it: an edited binding would leave the old one routing messages.
//
// destinationType must be stated: the upstream operator binds to an exchange
// when it is omitted, OpenStack-Helm's CRDs default it to queue
// (docs/topology.md, "CRDs of OpenStack-Helm's rabbitmq chart").
// +kubebuilder:validation:XValidation:rule="has(self.destinationType)",message="destinationType must be set, queue or exchange: the upstream operator binds an omitted destinationType to an exchange, OpenStack-Helm's CRDs default it to queue",fieldPath=".destinationType"
// +kubebuilder:validation:XValidation:rule="(has(self.vhost) ? (has(oldSelf.vhost) ? self.vhost == oldSelf.vhost : size(self.vhost) == 0) : (!has(oldSelf.vhost) || size(oldSelf.vhost) == 0))",message="vhost is immutable: delete the Binding and create it again with the new value",fieldPath=".vhost"
// +kubebuilder:validation:XValidation:rule="(has(self.source) ? (has(oldSelf.source) ? self.source == oldSelf.source : size(self.source) == 0) : (!has(oldSelf.source) || size(oldSelf.source) == 0))",message="source is immutable: delete the Binding and create it again with the new value",fieldPath=".source"
// +kubebuilder:validation:XValidation:rule="(has(self.destination) ? (has(oldSelf.destination) ? self.destination == oldSelf.destination : size(self.destination) == 0) : (!has(oldSelf.destination) || size(oldSelf.destination) == 0))",message="destination is immutable: delete the Binding and create it again with the new value",fieldPath=".destination"
// +kubebuilder:validation:XValidation:rule="(has(self.destinationType) ? (has(oldSelf.destinationType) ? self.destinationType == oldSelf.destinationType : size(self.destinationType) == 0) : (!has(oldSelf.destinationType) || size(oldSelf.destinationType) == 0))",message="destinationType is immutable: delete the Binding and create it again with the new value",fieldPath=".destinationType"
// +kubebuilder:validation:XValidation:rule="(has(self.routingKey) ? (has(oldSelf.routingKey) ? self.routingKey == oldSelf.routingKey : size(self.routingKey) == 0) : (!has(oldSelf.routingKey) || size(oldSelf.routingKey) == 0))",message="routingKey is immutable: delete the Binding and create it again with the new value",fieldPath=".routingKey"
// +kubebuilder:validation:XValidation:rule="has(self.arguments) == has(oldSelf.arguments) && (!has(self.arguments) || self.arguments == oldSelf.arguments)",message="arguments is immutable: delete the Binding and create it again with the new value",fieldPath=".arguments"
type BindingSpec struct {
	// Vhost of the binding.
	// +kubebuilder:default:=/
	// +optional
	Vhost string `json:"vhost,omitempty"`
	// Source exchange.
	// +optional
	Source string `json:"source,omitempty"`
	// Destination queue or exchange.
	// +optional
	Destination string `json:"destination,omitempty"`
	// DestinationType says whether destination is a queue or an exchange.
	// Required (a CEL rule): omitted, the upstream operator binds to an
	// exchange and OpenStack-Helm's CRDs default it to queue.
	// +kubebuilder:validation:Enum=exchange;queue
	// +optional
	DestinationType string `json:"destinationType,omitempty"`
	// RoutingKey of the binding.
	// +optional
	RoutingKey string `json:"routingKey,omitempty"`
	// Arguments of the binding, for example x-match for a headers exchange.
	// Together with the routing key they identify the binding.
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Arguments *runtime.RawExtension `json:"arguments,omitempty"`
	// RabbitmqClusterReference names the broker; see RabbitmqClusterReference.
	// +kubebuilder:validation:Required
	RabbitmqClusterReference RabbitmqClusterReference `json:"rabbitmqClusterReference"`
	// DeletionPolicy: delete removes exactly this binding (matched by routing
	// key and arguments) when the resource is deleted; retain leaves it.
	// Upstream has no such field and always deletes.
	// +kubebuilder:default:=delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={rabbitmq,orderhub},shortName=rbind
// +kubebuilder:printcolumn:name="Source",type=string,JSONPath=`.spec.source`
// +kubebuilder:printcolumn:name="Destination",type=string,JSONPath=`.spec.destination`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Binding is a RabbitMQ binding.
type Binding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BindingSpec    `json:"spec,omitempty"`
	Status TopologyStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// BindingList is a list of Binding.
type BindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Binding `json:"items"`
}

func init() { SchemeBuilder.Register(&Binding{}, &BindingList{}) }
