// Package v1alpha1 holds the RabbitMQ topology kinds of the
// rabbitmq.osh.openstack.org group: Vhost, User, Permission, Queue, Exchange,
// Binding and Policy.
//
// Spec field names, defaults and enums follow the upstream
// messaging-topology-operator (rabbitmq.com/v1beta1), so an upstream manifest
// applies with only its apiVersion changed (docs/topology.md, "Compatibility
// with the upstream operator"). The differences are deliberate and documented
// on the fields: deletionPolicy exists on all seven kinds, the exactly-one-of
// rules are CEL expressions instead of webhooks, and status conditions are
// metav1.Condition.
//
// +kubebuilder:object:generate=true
// +groupName=rabbitmq.osh.openstack.org
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "rabbitmq.osh.openstack.org", Version: "v1alpha1"}

	// SchemeBuilder registers the kinds of this package with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the kinds of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
