package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ServiceRef identifies a Keystone service by its name and type together.
type ServiceRef struct {
	// Name is the service name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	Name string `json:"name"`
	// Type is the service type.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	Type string `json:"type"`
}

// EndpointURLs holds one URL per interface. An interface left out is not published.
// +kubebuilder:validation:XValidation:rule="has(self.admin) || has(self.internal) || has(self.public)",message="at least one of admin, internal and public must be set"
type EndpointURLs struct {
	// Admin is the URL of the admin interface.
	// +optional
	// +kubebuilder:validation:MinLength=1
	Admin string `json:"admin,omitempty"`
	// Internal is the URL of the internal interface.
	// +optional
	// +kubebuilder:validation:MinLength=1
	Internal string `json:"internal,omitempty"`
	// Public is the URL of the public interface.
	// +optional
	// +kubebuilder:validation:MinLength=1
	Public string `json:"public,omitempty"`
}

// EndpointIDs records the ID of the endpoint adopted or created per interface.
type EndpointIDs struct {
	// +optional
	Admin string `json:"admin,omitempty"`
	// +optional
	Internal string `json:"internal,omitempty"`
	// +optional
	Public string `json:"public,omitempty"`
}

// EndpointSpec declares the admin, internal and public URLs of one service in
// one region. The service is looked up in Keystone by name and type; it does
// not have to be declared by a Service resource.
type EndpointSpec struct {
	CommonSpec `json:",inline"`

	// Service identifies the Keystone service by name and type. It may
	// change (to follow a renamed Service, the same Keystone service): when
	// it names another service, the endpoints are re-created there and the
	// ones this resource created are deleted (docs/identity.md, "Edits").
	Service ServiceRef `json:"service"`

	// Region is the region ID, such as RegionOne. The controller creates the
	// region when it is missing. A changed region moves the endpoints like a
	// changed service.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	Region string `json:"region"`

	// URLs holds one URL per published interface. A changed URL is updated in
	// place, so the endpoint keeps its ID.
	URLs EndpointURLs `json:"urls"`

	// Enabled is whether the endpoints are enabled. Default true; a disabled
	// endpoint found in Keystone is adopted and enabled, not duplicated.
	// +optional
	// +kubebuilder:default=true
	Enabled *bool `json:"enabled,omitempty"`
}

// EndpointStatus is the observed state of an Endpoint.
type EndpointStatus struct {
	CommonStatus `json:",inline"`
	// EndpointIDs holds the Keystone endpoint ID per interface. When Keystone
	// holds duplicates for an interface, the lowest ID is adopted and the
	// others are named in the Ready message; they are never deleted. An
	// interface removed from spec.urls keeps its ID here until its endpoint
	// is deleted from the catalog or released.
	// +optional
	EndpointIDs EndpointIDs `json:"endpointIDs,omitempty"`
	// CreatedInterfaces lists the interfaces (admin, internal, public) whose
	// recorded endpoint this resource created rather than adopted. Such an
	// endpoint is deleted from the catalog when its interface leaves
	// spec.urls or the endpoint set moves to another service or region; an
	// adopted one is released and stays (docs/identity.md, "Edits").
	// +optional
	// +listType=set
	CreatedInterfaces []string `json:"createdInterfaces,omitempty"`
	// ServiceID is the Keystone service the endpoints are published under.
	// When Keystone holds several services with spec.service's name and
	// type, the one a Service resource records is used, else this one, else
	// the lowest ID; the others are named in the Ready message and never
	// used (docs/identity.md, "Duplicate services and endpoints").
	// +optional
	ServiceID string `json:"serviceID,omitempty"`
}

// Endpoint is the set of catalog endpoints of one service in one region.
// Address it as endpoints.keystone.osh.openstack.org, because "endpoints" is
// also a core resource.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={keystone,orderhub},shortName=kep
// +kubebuilder:printcolumn:name="Service",type=string,JSONPath=`.spec.service.name`
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.service.type`
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.region`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Endpoint struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   EndpointSpec   `json:"spec"`
	Status EndpointStatus `json:"status,omitempty"`
}

// EndpointList is a list of Endpoints.
// +kubebuilder:object:root=true
type EndpointList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Endpoint `json:"items"`
}

func init() { SchemeBuilder.Register(&Endpoint{}, &EndpointList{}) }
