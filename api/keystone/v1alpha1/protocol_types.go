package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ProtocolSpec declares a federation protocol of an identity provider,
// created with PUT /v3/OS-FEDERATION/identity_providers/{idp}/protocols/{id}
// (docs/identity.md, "Federation").
// +kubebuilder:validation:XValidation:rule=`(has(self.id) ? self.id : "") == (has(oldSelf.id) ? oldSelf.id : "") && self.identityProvider == oldSelf.identityProvider`,message="spec.id and spec.identityProvider are immutable: they are the protocol's path in Keystone; create a new Protocol resource and delete this one"
type ProtocolSpec struct {
	CommonSpec `json:",inline"`

	// ID is the protocol's ID in Keystone, the name a federated login uses
	// in its URL ("openid", "saml2", "mapped"). Empty means metadata.name.
	// Immutable.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9_-]+$`
	ID string `json:"id,omitempty"`

	// IdentityProvider is the Keystone ID of the identity provider (an
	// IdentityProvider's spec.id). While it is missing in Keystone, the
	// Protocol waits (Ready=False naming it). Immutable.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9_.-]+$`
	IdentityProvider string `json:"identityProvider"`

	// Mapping is the Keystone ID of the mapping the protocol applies (a
	// Mapping's spec.id). While it is missing in Keystone, the Protocol
	// waits (Ready=False naming it). A change is applied in place.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9_-]+$`
	Mapping string `json:"mapping"`

	// RemoteIDAttribute is the attribute of the assertion that carries the
	// provider's remote ID. Unset leaves Keystone's value (the protocol's
	// remote_id_attribute option).
	// +optional
	// +kubebuilder:validation:MaxLength=64
	RemoteIDAttribute string `json:"remoteIDAttribute,omitempty"`
}

// ProtocolStatus is the observed state of a Protocol. It records no ID: the
// ID is the spec's.
type ProtocolStatus struct {
	CommonStatus `json:",inline"`
}

// Protocol is a federation protocol: it ties an identity provider to the
// mapping applied to its logins.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories={keystone,orderhub},shortName=kproto
// +kubebuilder:validation:XValidation:rule=`has(self.spec.id) || self.metadata.name.matches('^[a-zA-Z0-9_-]+$')`,message="metadata.name is not a Keystone protocol ID (letters, digits, '-' and '_' only): set spec.id"
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.spec.id`
// +kubebuilder:printcolumn:name="Identity Provider",type=string,JSONPath=`.spec.identityProvider`
// +kubebuilder:printcolumn:name="Mapping",type=string,JSONPath=`.spec.mapping`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Protocol struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProtocolSpec   `json:"spec"`
	Status ProtocolStatus `json:"status,omitempty"`
}

// ProtocolList is a list of Protocols.
// +kubebuilder:object:root=true
type ProtocolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Protocol `json:"items"`
}

func init() { SchemeBuilder.Register(&Protocol{}, &ProtocolList{}) }
