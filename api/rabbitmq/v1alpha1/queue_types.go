package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// QueueSpec is the queue to declare; PUT /api/queues/{vhost}/{name}.
//
// name, vhost, type, durable, autoDelete and arguments are immutable, as
// upstream's webhook has them: the broker cannot change them on an existing
// queue, and a renamed queue would be left behind, tracked by nothing.
//
// A quorum queue must be durable (upstream's webhook refuses it at creation).
//
// durable must be stated: upstream's mutating webhook defaults an omitted
// durable to true, OpenStack-Helm's CRDs to false, so a manifest without it
// would mean something else on one side (docs/topology.md, "CRDs of
// OpenStack-Helm's rabbitmq chart").
// +kubebuilder:validation:XValidation:rule="has(self.durable)",message="durable must be set, true or false: the upstream operator defaults an omitted durable to true, OpenStack-Helm's CRDs to false",fieldPath=".durable"
// +kubebuilder:validation:XValidation:rule="!has(self.type) || self.type != 'quorum' || !has(self.durable) || self.durable",message="quorum queues must be durable: set durable to true",fieldPath=".durable"
// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name",message="name is immutable: delete the Queue and create it again with the new value",fieldPath=".name"
// +kubebuilder:validation:XValidation:rule="(has(self.vhost) ? (has(oldSelf.vhost) ? self.vhost == oldSelf.vhost : size(self.vhost) == 0) : (!has(oldSelf.vhost) || size(oldSelf.vhost) == 0))",message="vhost is immutable: delete the Queue and create it again with the new value",fieldPath=".vhost"
// +kubebuilder:validation:XValidation:rule="(has(self.type) ? (has(oldSelf.type) ? self.type == oldSelf.type : size(self.type) == 0) : (!has(oldSelf.type) || size(oldSelf.type) == 0))",message="type is immutable: delete the Queue and create it again with the new value",fieldPath=".type"
// +kubebuilder:validation:XValidation:rule="(has(self.durable) ? (has(oldSelf.durable) ? self.durable == oldSelf.durable : self.durable == true) : (!has(oldSelf.durable) || oldSelf.durable == true))",message="durable is immutable: delete the Queue and create it again with the new value",fieldPath=".durable"
// +kubebuilder:validation:XValidation:rule="(has(self.autoDelete) ? (has(oldSelf.autoDelete) ? self.autoDelete == oldSelf.autoDelete : self.autoDelete == false) : (!has(oldSelf.autoDelete) || oldSelf.autoDelete == false))",message="autoDelete is immutable: delete the Queue and create it again with the new value",fieldPath=".autoDelete"
// +kubebuilder:validation:XValidation:rule="has(self.arguments) == has(oldSelf.arguments) && (!has(self.arguments) || self.arguments == oldSelf.arguments)",message="arguments is immutable: delete the Queue and create it again with the new value",fieldPath=".arguments"
type QueueSpec struct {
	// Name of the queue.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Vhost of the queue.
	// +kubebuilder:default:=/
	// +optional
	Vhost string `json:"vhost,omitempty"`
	// Type of the queue (for example classic, quorum, stream), sent as the
	// x-queue-type argument; it wins over an x-queue-type in arguments, as
	// upstream's.
	// +optional
	Type string `json:"type,omitempty"`
	// Durable queues survive a broker restart. Required (a CEL rule): the
	// upstream operator and OpenStack-Helm's CRDs default it differently.
	// Quorum queues must be durable (a CEL rule).
	// +optional
	Durable *bool `json:"durable,omitempty"`
	// AutoDelete deletes the queue once its last consumer unsubscribes.
	// +optional
	AutoDelete bool `json:"autoDelete,omitempty"`
	// Arguments of the queue (x-arguments), for example x-max-length: 1000.
	// They cannot be changed once the queue exists; prefer a Policy.
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Arguments *runtime.RawExtension `json:"arguments,omitempty"`
	// DeleteIfEmpty deletes the queue only when it holds no messages; a
	// non-empty queue keeps the resource in deletion, retried with backoff.
	// +optional
	DeleteIfEmpty bool `json:"deleteIfEmpty,omitempty"`
	// DeleteIfUnused deletes the queue only when it has no consumers.
	// +optional
	DeleteIfUnused bool `json:"deleteIfUnused,omitempty"`
	// RabbitmqClusterReference names the broker; see RabbitmqClusterReference.
	// +kubebuilder:validation:Required
	RabbitmqClusterReference RabbitmqClusterReference `json:"rabbitmqClusterReference"`
	// DeletionPolicy: delete removes the queue and its messages when the
	// resource is deleted; retain leaves it.
	// +kubebuilder:default:=delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={rabbitmq,orderhub},shortName=rq
// +kubebuilder:printcolumn:name="Queue",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Vhost",type=string,JSONPath=`.spec.vhost`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Queue is a RabbitMQ queue.
type Queue struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   QueueSpec      `json:"spec,omitempty"`
	Status TopologyStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// QueueList is a list of Queue.
type QueueList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Queue `json:"items"`
}

func init() { SchemeBuilder.Register(&Queue{}, &QueueList{}) }
