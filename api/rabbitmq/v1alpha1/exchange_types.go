package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ExchangeSpec is the exchange to declare; PUT /api/exchanges/{vhost}/{name}.
//
// name, vhost, type, durable and autoDelete are immutable, as upstream's
// webhook has them; arguments stay editable, as upstream (the broker refuses
// a changed alternate-exchange, and Ready says so).
// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name",message="name is immutable: delete the Exchange and create it again with the new value",fieldPath=".name"
// +kubebuilder:validation:XValidation:rule="(has(self.vhost) ? (has(oldSelf.vhost) ? self.vhost == oldSelf.vhost : size(self.vhost) == 0) : (!has(oldSelf.vhost) || size(oldSelf.vhost) == 0))",message="vhost is immutable: delete the Exchange and create it again with the new value",fieldPath=".vhost"
// +kubebuilder:validation:XValidation:rule="(has(self.type) ? (has(oldSelf.type) ? self.type == oldSelf.type : size(self.type) == 0) : (!has(oldSelf.type) || size(oldSelf.type) == 0))",message="type is immutable: delete the Exchange and create it again with the new value",fieldPath=".type"
// +kubebuilder:validation:XValidation:rule="(has(self.durable) ? (has(oldSelf.durable) ? self.durable == oldSelf.durable : self.durable == false) : (!has(oldSelf.durable) || oldSelf.durable == false))",message="durable is immutable: delete the Exchange and create it again with the new value",fieldPath=".durable"
// +kubebuilder:validation:XValidation:rule="(has(self.autoDelete) ? (has(oldSelf.autoDelete) ? self.autoDelete == oldSelf.autoDelete : self.autoDelete == false) : (!has(oldSelf.autoDelete) || oldSelf.autoDelete == false))",message="autoDelete is immutable: delete the Exchange and create it again with the new value",fieldPath=".autoDelete"
type ExchangeSpec struct {
	// Name of the exchange.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Vhost of the exchange.
	// +kubebuilder:default:=/
	// +optional
	Vhost string `json:"vhost,omitempty"`
	// Type of the exchange: direct, fanout, topic, headers or a plugin type.
	// +kubebuilder:default:=direct
	// +optional
	Type string `json:"type,omitempty"`
	// Durable exchanges survive a broker restart.
	// +optional
	Durable bool `json:"durable,omitempty"`
	// AutoDelete deletes the exchange once its last binding is removed.
	// +optional
	AutoDelete bool `json:"autoDelete,omitempty"`
	// Arguments of the exchange, for example alternate-exchange.
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Arguments *runtime.RawExtension `json:"arguments,omitempty"`
	// RabbitmqClusterReference names the broker; see RabbitmqClusterReference.
	// +kubebuilder:validation:Required
	RabbitmqClusterReference RabbitmqClusterReference `json:"rabbitmqClusterReference"`
	// DeletionPolicy: delete removes the exchange when the resource is
	// deleted; retain leaves it. Upstream has no such field and always
	// deletes.
	// +kubebuilder:default:=delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={rabbitmq,orderhub},shortName=rex
// +kubebuilder:printcolumn:name="Exchange",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Vhost",type=string,JSONPath=`.spec.vhost`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Exchange is a RabbitMQ exchange.
type Exchange struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ExchangeSpec   `json:"spec,omitempty"`
	Status TopologyStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ExchangeList is a list of Exchange.
type ExchangeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Exchange `json:"items"`
}

func init() { SchemeBuilder.Register(&Exchange{}, &ExchangeList{}) }
