package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// BindingSpec is a binding from an exchange to a queue or exchange;
// POST /api/bindings/{vhost}/e/{source}/{q|e}/{destination}, sent only when
// no binding between the two has the same routing key and arguments.
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
// +kubebuilder:resource:categories=rabbitmq
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
