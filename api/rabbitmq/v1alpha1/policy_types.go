package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// PolicySpec is the policy to declare; PUT /api/policies/{vhost}/{name}.
//
// name and vhost are immutable, as upstream's webhook has them.
// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name",message="name is immutable: delete the Policy and create it again with the new value",fieldPath=".name"
// +kubebuilder:validation:XValidation:rule="(has(self.vhost) ? (has(oldSelf.vhost) ? self.vhost == oldSelf.vhost : size(self.vhost) == 0) : (!has(oldSelf.vhost) || size(oldSelf.vhost) == 0))",message="vhost is immutable: delete the Policy and create it again with the new value",fieldPath=".vhost"
type PolicySpec struct {
	// Name of the policy.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Vhost of the policy.
	// +kubebuilder:default:=/
	// +optional
	Vhost string `json:"vhost,omitempty"`
	// Pattern is the regular expression selecting queues or exchanges by
	// name, for example ^(?!(amq\.|reply_)).* .
	// +kubebuilder:validation:Required
	Pattern string `json:"pattern"`
	// ApplyTo selects what the policy applies to.
	// +kubebuilder:validation:Enum=queues;classic_queues;quorum_queues;streams;exchanges;all
	// +kubebuilder:default:=all
	// +optional
	ApplyTo string `json:"applyTo,omitempty"`
	// Priority decides between policies matching the same object; the higher
	// wins.
	// +kubebuilder:default:=0
	// +optional
	Priority int `json:"priority"`
	// Definition is the policy's key/value map, for example message-ttl: 70000.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Definition *runtime.RawExtension `json:"definition"`
	// RabbitmqClusterReference names the broker; see RabbitmqClusterReference.
	// +kubebuilder:validation:Required
	RabbitmqClusterReference RabbitmqClusterReference `json:"rabbitmqClusterReference"`
	// DeletionPolicy: delete removes the policy when the resource is deleted;
	// retain leaves it. Upstream has no such field and always deletes.
	// +kubebuilder:default:=delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={rabbitmq,orderhub},shortName=rpol
// +kubebuilder:printcolumn:name="Policy",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Vhost",type=string,JSONPath=`.spec.vhost`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Policy is a RabbitMQ policy.
type Policy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PolicySpec     `json:"spec,omitempty"`
	Status TopologyStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// PolicyList is a list of Policy.
type PolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Policy `json:"items"`
}

func init() { SchemeBuilder.Register(&Policy{}, &PolicyList{}) }
