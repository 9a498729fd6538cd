// Package v1alpha1 holds the keystone.osh.openstack.org/v1alpha1 API: eight
// namespaced kinds (Domain, Project, Role, Group, User, RoleAssignment, Service,
// Endpoint) that declare Keystone identity objects by name. The identity
// controller (`orderhub identity`) reconciles them against one Keystone.
// Documentation: docs/identity.md.
//
// +kubebuilder:object:generate=true
// +groupName=keystone.osh.openstack.org
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the API group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "keystone.osh.openstack.org", Version: "v1alpha1"}

	// SchemeBuilder registers the kinds of this package with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the kinds of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
