package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FederationSpec is a federation upstream;
// PUT /api/parameters/federation-upstream/{vhost}/{name}
// (https://www.rabbitmq.com/docs/federation-reference; the broker needs the
// rabbitmq_federation plugin). Fields, defaults and enums as upstream's
// Federation (github.com/rabbitmq/messaging-topology-operator,
// api/v1beta1/federation_types.go), json tags included; each maps to the
// upstream parameter key of the same meaning (internal/federation_definition.go).
//
// name and vhost are immutable, as upstream's webhook has them
// (internal/webhook/v1beta1/federation_webhook.go).
// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name",message="name is immutable: delete the Federation and create it again with the new value",fieldPath=".name"
// +kubebuilder:validation:XValidation:rule="(has(self.vhost) ? (has(oldSelf.vhost) ? self.vhost == oldSelf.vhost : size(self.vhost) == 0) : (!has(oldSelf.vhost) || size(oldSelf.vhost) == 0))",message="vhost is immutable: delete the Federation and create it again with the new value",fieldPath=".vhost"
type FederationSpec struct {
	// Name of the federation upstream.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Vhost of the federation upstream.
	// +kubebuilder:default:=/
	// +optional
	Vhost string `json:"vhost,omitempty"`
	// RabbitmqClusterReference names the broker; see RabbitmqClusterReference.
	// +kubebuilder:validation:Required
	RabbitmqClusterReference RabbitmqClusterReference `json:"rabbitmqClusterReference"`
	// UriSecret names a Secret of the namespace with the key uri: the
	// upstream's AMQP URI, several separated by commas.
	// +kubebuilder:validation:Required
	URISecret *corev1.LocalObjectReference `json:"uriSecret"`
	// +optional
	PrefetchCount int `json:"prefetch-count,omitempty"`
	// +kubebuilder:validation:Enum=on-confirm;on-publish;no-ack
	// +optional
	AckMode string `json:"ackMode,omitempty"`
	// Expires of the upstream queue, in milliseconds.
	// +optional
	Expires int `json:"expires,omitempty"`
	// MessageTTL of the upstream queue, in milliseconds.
	// +optional
	MessageTTL int `json:"messageTTL,omitempty"`
	// +optional
	MaxHops int `json:"maxHops,omitempty"`
	// ReconnectDelay in seconds.
	// +optional
	ReconnectDelay int `json:"reconnectDelay,omitempty"`
	// +optional
	TrustUserID bool `json:"trustUserId,omitempty"`
	// Exchange of the upstream, when it differs from the federated one.
	// +optional
	Exchange string `json:"exchange,omitempty"`
	// Queue of the upstream, when it differs from the federated one.
	// +optional
	Queue string `json:"queue,omitempty"`
	// DeletionPolicy: delete removes the federation upstream when the
	// resource is deleted; retain leaves it (upstream's field).
	// +kubebuilder:default:=delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
	// QueueType of the internal upstream queue of exchange federation.
	// +kubebuilder:validation:Enum=classic;quorum
	// +optional
	QueueType string `json:"queueType,omitempty"`
	// ResourceCleanupMode never keeps the internal upstream queue when a
	// federation link stops.
	// +kubebuilder:validation:Enum=default;never
	// +optional
	ResourceCleanupMode string `json:"resourceCleanupMode,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={rabbitmq,orderhub},shortName=rfed
// +kubebuilder:printcolumn:name="Federation",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Vhost",type=string,JSONPath=`.spec.vhost`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Federation is a RabbitMQ federation upstream.
type Federation struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FederationSpec `json:"spec,omitempty"`
	Status TopologyStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// FederationList is a list of Federation.
type FederationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Federation `json:"items"`
}

func init() { SchemeBuilder.Register(&Federation{}, &FederationList{}) }
