package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ServiceSpec declares a service catalog entry, identified by name and type
// together (neither is unique alone).
type ServiceSpec struct {
	CommonSpec `json:",inline"`

	// Name is the service name, such as cinderv3. A changed name or type
	// updates the service in place, keeping its ID and endpoints
	// (docs/identity.md, "Edits").
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	Name string `json:"name"`

	// Type is the service type, such as volumev3.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	Type string `json:"type"`

	// Description of the service. When set, it is applied on create and whenever it
	// differs; empty leaves the description in Keystone as it is.
	// +optional
	Description string `json:"description,omitempty"`

	// Enabled is whether the service is enabled. Default true. Applied
	// whenever it differs.
	// +optional
	// +kubebuilder:default=true
	Enabled *bool `json:"enabled,omitempty"`
}

// ServiceStatus is the observed state of a Service.
type ServiceStatus struct {
	CommonStatus `json:",inline"`
	// ServiceID is the ID Keystone assigned to the service.
	// +optional
	ServiceID string `json:"serviceID,omitempty"`
}

// Service is a Keystone service catalog entry. Address it as
// services.keystone.osh.openstack.org, because "services" is also a core resource.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={keystone,orderhub},shortName=ksrv
// +kubebuilder:printcolumn:name="Keystone Name",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.serviceID`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Service struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ServiceSpec   `json:"spec"`
	Status ServiceStatus `json:"status,omitempty"`
}

// ServiceList is a list of Services.
// +kubebuilder:object:root=true
type ServiceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Service `json:"items"`
}

func init() { SchemeBuilder.Register(&Service{}, &ServiceList{}) }
