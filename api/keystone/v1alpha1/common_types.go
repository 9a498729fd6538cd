package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DeletionPolicy says what happens to the Keystone object when the resource is
// deleted (docs/identity.md, "Common fields").
// +kubebuilder:validation:Enum=retain;delete
type DeletionPolicy string

const (
	// DeletionPolicyRetain leaves the Keystone object in place; no finalizer is added.
	DeletionPolicyRetain DeletionPolicy = "retain"
	// DeletionPolicyDelete adds a finalizer and removes the Keystone object before
	// the resource goes away.
	DeletionPolicyDelete DeletionPolicy = "delete"
)

// Finalizer is the one finalizer the identity controller adds, and only to
// resources whose deletionPolicy is delete.
const Finalizer = "keystone.osh.openstack.org/finalizer"

// ConditionReady is the condition type that reports whether the Keystone
// object matches the spec. It is what `kubectl wait --for=condition=Ready` reads.
const ConditionReady = "Ready"

// Reasons of the Ready condition.
const (
	// ReasonReconciled: the Keystone object exists and matches the spec (Ready=True).
	ReasonReconciled = "Reconciled"
	// ReasonReconcileError: the last attempt failed; the message says why, for
	// example which dependency is missing in Keystone (Ready=False). The
	// controller retries after spec.retryInterval or its own backoff.
	ReasonReconcileError = "ReconcileError"
)

// Reasons of the events the controller emits besides the Ready condition's.
const (
	// EventReasonDeleted: the Keystone object was deleted with the resource
	// (deletionPolicy delete).
	EventReasonDeleted = "Deleted"
	// EventReasonRetained: the resource was deleted and its Keystone object
	// kept, because the deletionPolicy in force at deletion is retain.
	EventReasonRetained = "Retained"
	// EventReasonDriftRepaired: a resync found Keystone no longer matching the
	// unchanged spec (an object missing, a field edited out of band) and
	// repaired it; the message names what was missing or changed.
	EventReasonDriftRepaired = "DriftRepaired"
)

// KeystoneRef names the Keystone deployment a resource belongs to.
type KeystoneRef struct {
	// Name of the Keystone deployment. Empty means the deployment served by the
	// controller that watches this namespace. A resource naming another
	// deployment is ignored by this controller and gets no status.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`
}

// CommonSpec holds the fields every kind of this group shares.
type CommonSpec struct {
	// KeystoneRef names the Keystone deployment that serves this resource.
	// +optional
	KeystoneRef *KeystoneRef `json:"keystoneRef,omitempty"`

	// DeletionPolicy is retain (the default: the Keystone object stays when this
	// resource is deleted) or delete (a finalizer is added and the Keystone
	// object is removed). Set delete only on objects that exactly one resource
	// declares, such as a service user or an endpoint.
	// +optional
	// +kubebuilder:default=retain
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// RetryInterval is the shortest delay before a failed resource is tried
	// again, as a Go duration such as 30s or 1m30s. Unset uses the
	// controller's own backoff.
	// +optional
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	RetryInterval string `json:"retryInterval,omitempty"`
}

// CommonStatus holds the status fields every kind of this group shares.
type CommonStatus struct {
	// ObservedGeneration is the metadata.generation the controller last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions holds the Ready condition: True with reason Reconciled, or
	// False with reason ReconcileError and a message saying what failed.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// NamedInDomain identifies a Keystone object by its name and the name of its domain.
type NamedInDomain struct {
	// Name is the Keystone name, matched exactly.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	Name string `json:"name"`

	// Domain is the name of the owning domain. Empty means the default domain
	// (id "default"); "Default" in any letter case is the default domain too.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Domain string `json:"domain,omitempty"`
}

// RoleRef identifies a role by name; a domain makes it a domain-specific role.
type RoleRef struct {
	// Name is the Keystone role name, matched exactly.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	Name string `json:"name"`

	// Domain is the name of the domain of a domain-specific role. Empty means a
	// global role.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Domain string `json:"domain,omitempty"`
}

// DomainRef identifies a domain by name.
type DomainRef struct {
	// Name is the Keystone domain name; "Default" in any letter case is the
	// default domain (id "default").
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	Name string `json:"name"`
}
