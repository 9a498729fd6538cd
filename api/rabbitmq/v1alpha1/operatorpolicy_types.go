package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// OperatorPolicySpec is the operator policy to declare;
// PUT /api/operator-policies/{vhost}/{name}
// (https://www.rabbitmq.com/docs/policies#operator-policies). Fields, as
// upstream's OperatorPolicy (github.com/rabbitmq/messaging-topology-operator,
// api/v1beta1/operatorpolicy_types.go).
//
// name and vhost are immutable, as upstream's webhook has them
// (internal/webhook/v1beta1/operatorpolicy_webhook.go).
// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name",message="name is immutable: delete the OperatorPolicy and create it again with the new value",fieldPath=".name"
// +kubebuilder:validation:XValidation:rule="(has(self.vhost) ? (has(oldSelf.vhost) ? self.vhost == oldSelf.vhost : size(self.vhost) == 0) : (!has(oldSelf.vhost) || size(oldSelf.vhost) == 0))",message="vhost is immutable: delete the OperatorPolicy and create it again with the new value",fieldPath=".vhost"
type OperatorPolicySpec struct {
	// Name of the operator policy.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Vhost of the operator policy.
	// +kubebuilder:default:=/
	// +optional
	Vhost string `json:"vhost,omitempty"`
	// Pattern is the regular expression selecting queues by name, for
	// example "^my-queue$".
	// +kubebuilder:validation:Required
	Pattern string `json:"pattern"`
	// ApplyTo selects the queue types the operator policy applies to.
	// +kubebuilder:validation:Enum=queues;classic_queues;quorum_queues;streams
	// +kubebuilder:default:=queues
	// +optional
	ApplyTo string `json:"applyTo,omitempty"`
	// Priority decides between operator policies matching the same queue;
	// the higher wins.
	// +kubebuilder:default:=0
	// +optional
	Priority int `json:"priority"`
	// Definition is the operator policy's key/value map, for example
	// expires: 1800000. The broker accepts a subset of policy keys here.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Definition *runtime.RawExtension `json:"definition"`
	// RabbitmqClusterReference names the broker; see RabbitmqClusterReference.
	// +kubebuilder:validation:Required
	RabbitmqClusterReference RabbitmqClusterReference `json:"rabbitmqClusterReference"`
	// DeletionPolicy: delete removes the operator policy when the resource
	// is deleted; retain leaves it. Upstream has no such field and always
	// deletes.
	// +kubebuilder:default:=delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={rabbitmq,orderhub},shortName=ropol
// +kubebuilder:printcolumn:name="OperatorPolicy",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Vhost",type=string,JSONPath=`.spec.vhost`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// OperatorPolicy is a RabbitMQ operator policy: limits an administrator
// sets on queues, over the policies users set.
type OperatorPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   OperatorPolicySpec `json:"spec,omitempty"`
	Status TopologyStatus     `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// OperatorPolicyList is a list of OperatorPolicy.
type OperatorPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []OperatorPolicy `json:"items"`
}

func init() { SchemeBuilder.Register(&OperatorPolicy{}, &OperatorPolicyList{}) }
