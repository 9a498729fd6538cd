package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// IdentityProviderSpec declares a Keystone identity provider, created with
// PUT /v3/OS-FEDERATION/identity_providers/{id} (docs/identity.md, "Federation").
// +kubebuilder:validation:XValidation:rule=`(has(self.id) ? self.id : "") == (has(oldSelf.id) ? oldSelf.id : "")`,message="spec.id is immutable: it is the identity provider's ID in Keystone; create a new IdentityProvider resource and delete this one"
// +kubebuilder:validation:XValidation:rule=`(has(self.domain) ? self.domain : "") == (has(oldSelf.domain) ? oldSelf.domain : "")`,message="spec.domain is immutable: Keystone does not move an identity provider to another domain; create a new IdentityProvider resource and delete this one"
type IdentityProviderSpec struct {
	CommonSpec `json:",inline"`

	// ID is the identity provider's ID in Keystone, chosen here. Empty means
	// metadata.name. Immutable.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9_.-]+$`
	ID string `json:"id,omitempty"`

	// Domain is the name of the domain the provider's shadow users are
	// created in. Empty lets Keystone create a domain for the provider.
	// Immutable: Keystone cannot change it after the create.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Domain string `json:"domain,omitempty"`

	// Description of the provider. When set, it is applied on create and
	// whenever it differs; empty leaves the description in Keystone as it is.
	// +optional
	Description string `json:"description,omitempty"`

	// Enabled is whether tokens may be issued for this provider. Default true
	// (Keystone's own default, false, is not used).
	// +optional
	// +kubebuilder:default=true
	Enabled *bool `json:"enabled,omitempty"`

	// RemoteIDs are the provider's entity IDs (SAML) or issuers (OpenID
	// Connect) Keystone matches incoming assertions against. The list is the
	// whole set: remote IDs added in Keystone outside it are removed.
	// +optional
	// +listType=set
	// +kubebuilder:validation:items:MinLength=1
	RemoteIDs []string `json:"remoteIDs,omitempty"`

	// AuthorizationTTL is how long, in minutes, group memberships a federated
	// login gave are kept for later logins with other methods. Unset leaves
	// Keystone's value (the [federation] default_authorization_ttl option).
	// +optional
	// +kubebuilder:validation:Minimum=0
	AuthorizationTTL *int32 `json:"authorizationTTL,omitempty"`
}

// IdentityProviderStatus is the observed state of an IdentityProvider. It
// records no ID: the ID is the spec's.
type IdentityProviderStatus struct {
	CommonStatus `json:",inline"`
}

// IdentityProvider is a Keystone identity provider of federated logins.
// Deleting it from Keystone (deletionPolicy delete) leaves the shadow users
// it created without a provider, so keep the retain default unless nothing
// logged in through it.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={keystone,orderhub},shortName=kidp
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.spec.id`
// +kubebuilder:printcolumn:name="Domain",type=string,JSONPath=`.spec.domain`
// +kubebuilder:printcolumn:name="Enabled",type=boolean,JSONPath=`.spec.enabled`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type IdentityProvider struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   IdentityProviderSpec   `json:"spec"`
	Status IdentityProviderStatus `json:"status,omitempty"`
}

// IdentityProviderList is a list of IdentityProviders.
// +kubebuilder:object:root=true
type IdentityProviderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []IdentityProvider `json:"items"`
}

func init() { SchemeBuilder.Register(&IdentityProvider{}, &IdentityProviderList{}) }
