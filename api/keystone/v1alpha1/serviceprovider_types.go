package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ServiceProviderSpec declares a Keystone service provider (a Keystone this
// one issues SAML assertions to, Keystone to Keystone federation), created
// with PUT /v3/OS-FEDERATION/service_providers/{id} (docs/identity.md,
// "Federation").
// +kubebuilder:validation:XValidation:rule=`(has(self.id) ? self.id : "") == (has(oldSelf.id) ? oldSelf.id : "")`,message="spec.id is immutable: it is the service provider's ID in Keystone; create a new ServiceProvider resource and delete this one"
type ServiceProviderSpec struct {
	CommonSpec `json:",inline"`

	// ID is the service provider's ID in Keystone, chosen here. Empty means
	// metadata.name. Immutable.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9_.-]+$`
	ID string `json:"id,omitempty"`

	// AuthURL is the service provider's federated authentication URL
	// (…/v3/OS-FEDERATION/identity_providers/{idp}/protocols/saml2/auth).
	// +kubebuilder:validation:MaxLength=225
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9+.-]+:.+`
	AuthURL string `json:"authURL"`

	// SPURL is the service provider's SAML endpoint (…/Shibboleth.sso/SAML2/ECP).
	// +kubebuilder:validation:MaxLength=225
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9+.-]+:.+`
	SPURL string `json:"spURL"`

	// Description of the service provider. When set, it is applied on create
	// and whenever it differs; empty leaves the description in Keystone as it is.
	// +optional
	Description string `json:"description,omitempty"`

	// Enabled is whether assertions may be issued to it. Default true.
	// +optional
	// +kubebuilder:default=true
	Enabled *bool `json:"enabled,omitempty"`

	// RelayStatePrefix is the prefix of the ECP relay state. Unset leaves
	// Keystone's value (the [saml] relay_state_prefix option).
	// +optional
	RelayStatePrefix string `json:"relayStatePrefix,omitempty"`
}

// ServiceProviderStatus is the observed state of a ServiceProvider. It
// records no ID: the ID is the spec's.
type ServiceProviderStatus struct {
	CommonStatus `json:",inline"`
}

// ServiceProvider is a Keystone service provider of Keystone to Keystone
// federation.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={keystone,orderhub},shortName=ksvp
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.spec.id`
// +kubebuilder:printcolumn:name="Auth URL",type=string,JSONPath=`.spec.authURL`
// +kubebuilder:printcolumn:name="Enabled",type=boolean,JSONPath=`.spec.enabled`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ServiceProvider struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ServiceProviderSpec   `json:"spec"`
	Status ServiceProviderStatus `json:"status,omitempty"`
}

// ServiceProviderList is a list of ServiceProviders.
// +kubebuilder:object:root=true
type ServiceProviderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ServiceProvider `json:"items"`
}

func init() { SchemeBuilder.Register(&ServiceProvider{}, &ServiceProviderList{}) }
