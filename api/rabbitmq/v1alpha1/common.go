package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Finalizer is the one finalizer the topology controller puts on a resource,
// and only when its deletionPolicy is delete (docs/topology.md, "Compatibility
// with the upstream operator").
const Finalizer = "rabbitmq.osh.openstack.org/finalizer"

// ConditionReady is the only condition type the topology controller writes.
// kubectl wait --for=condition=Ready and the printer columns read it.
const ConditionReady = "Ready"

// Reasons of the Ready condition: upstream's two reasons, and
// DuplicateDeclaration, which upstream has no rule for (docs/topology.md,
// "Several declarations of one broker object"). A resource this controller
// does not serve carries no condition at all.
const (
	// ReasonSuccessfulCreateOrUpdate: the broker accepted the declaration
	// (Ready=True). Nothing to do.
	ReasonSuccessfulCreateOrUpdate = "SuccessfulCreateOrUpdate"
	// ReasonFailedCreateOrUpdate: the declaration was refused, could not be
	// sent, or waits for a dependency (Ready=False). The message says which;
	// a broker refusal carries the broker's own text. The controller retries
	// with backoff.
	ReasonFailedCreateOrUpdate = "FailedCreateOrUpdate"
	// ReasonDuplicateDeclaration: an older resource served by this
	// controller declares the same broker object (Ready=False); the
	// message names it. Nothing is written to the broker for this resource;
	// it takes over when the older one is deleted.
	ReasonDuplicateDeclaration = "DuplicateDeclaration"
)

// DeletionPolicy says what happens in RabbitMQ when the resource is deleted.
// +kubebuilder:validation:Enum=delete;retain
type DeletionPolicy string

const (
	// DeletionPolicyDelete deletes the broker object with the resource. The
	// controller holds a finalizer until the broker confirms (a 404 counts).
	DeletionPolicyDelete DeletionPolicy = "delete"
	// DeletionPolicyRetain leaves the broker object alone; no finalizer.
	DeletionPolicyRetain DeletionPolicy = "retain"
)

// RabbitmqClusterReference names the broker a resource belongs to. Exactly one
// of name and connectionSecret is set.
//
// The topology controller resolves nothing from it: it serves one broker,
// configured in its own environment, and uses the reference only to decide
// whether a resource is its own. A name other than its cluster name, any
// connectionSecret, or a namespace other than the controller's own means the
// resource belongs to another controller (for example the upstream operator)
// and is left entirely alone, status included.
//
// The reference is immutable, as upstream's webhook has it: repointing a
// served resource would leave its broker object with no controller deleting
// it.
// +kubebuilder:validation:XValidation:rule="has(self.name) != has(self.connectionSecret)",message="exactly one of name and connectionSecret must be set"
// +kubebuilder:validation:XValidation:rule="(has(self.name) ? (has(oldSelf.name) ? self.name == oldSelf.name : size(self.name) == 0) : (!has(oldSelf.name) || size(oldSelf.name) == 0)) && (has(self.__namespace__) ? (has(oldSelf.__namespace__) ? self.__namespace__ == oldSelf.__namespace__ : size(self.__namespace__) == 0) : (!has(oldSelf.__namespace__) || size(oldSelf.__namespace__) == 0)) && has(self.connectionSecret) == has(oldSelf.connectionSecret) && (!has(self.connectionSecret) || (has(self.connectionSecret.name) ? (has(oldSelf.connectionSecret.name) ? self.connectionSecret.name == oldSelf.connectionSecret.name : size(self.connectionSecret.name) == 0) : (!has(oldSelf.connectionSecret.name) || size(oldSelf.connectionSecret.name) == 0)))",message="rabbitmqClusterReference is immutable: set deletionPolicy retain, delete the resource and create it again with the new reference"
type RabbitmqClusterReference struct {
	// Name of the RabbitMQ cluster. This controller serves the resource only
	// when the name equals its configured cluster name.
	// +kubebuilder:validation:MinLength=1
	// +optional
	Name string `json:"name,omitempty"`
	// Namespace of the RabbitMQ cluster; defaults to the resource's namespace.
	// This controller serves only its own namespace.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// ConnectionSecret names a Secret with uri, username and password keys, as
	// the upstream operator reads it. This controller never serves a resource
	// that sets it.
	// +optional
	ConnectionSecret *corev1.LocalObjectReference `json:"connectionSecret,omitempty"`
}

// TopologyStatus is the observed state every kind reports.
type TopologyStatus struct {
	// ObservedGeneration is the generation the broker last accepted.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions holds the Ready condition (reasons SuccessfulCreateOrUpdate,
	// FailedCreateOrUpdate and DuplicateDeclaration). Absent on a resource
	// this controller does not serve.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}
