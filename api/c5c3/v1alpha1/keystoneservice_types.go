package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KeystoneServiceSpec registers one service against the identity plane of a
// ControlPlane: a catalog entry, a service account, or both
// (docs/reference/keystoneservice.md, "KeystoneServiceSpec"). A spec with
// neither block is rejected by the schema.
// +kubebuilder:validation:XValidation:rule="has(self.catalog) || has(self.account)",message="at least one of spec.catalog or spec.account must be set"
type KeystoneServiceSpec struct {
	// The ControlPlane whose identity plane this service registers against.
	// name is immutable (CEL); namespace is immutable by resolved value
	// (validating webhook, because an empty value means this CR's own
	// namespace, which CEL cannot read). Delete and re-create the CR to
	// re-point it.
	// +required
	// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name",message="controlPlaneRef.name is immutable"
	ControlPlaneRef ControlPlaneRefSpec `json:"controlPlaneRef,omitzero"`

	// The catalog entry to register: one service row plus at most one
	// endpoint row per interface.
	// +optional
	Catalog *KeystoneServiceCatalogSpec `json:"catalog,omitempty"`

	// The Keystone account to provision. Its credentials are delivered as the
	// Secret <metadata.name>-credentials in this CR's namespace.
	// +optional
	// +kubebuilder:validation:XValidation:rule="has(self.domainName) == has(oldSelf.domainName) && (!has(self.domainName) || self.domainName == oldSelf.domainName)",message="account.domainName is immutable"
	Account *KeystoneServiceAccountSpec `json:"account,omitempty"`
}

// KeystoneServiceCatalogSpec is the service's catalog entry
// (docs/reference/keystoneservice.md, "KeystoneServiceCatalogSpec").
type KeystoneServiceCatalogSpec struct {
	// The OpenStack service type, e.g. image or compute: a lowercase DNS-1123
	// label of at most 63 characters, because it is embedded in child K-ORC
	// names. identity is rejected: that row belongs to the ControlPlane.
	// Immutable.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self != 'identity'",message="catalog.serviceType identity is owned by the ControlPlane and cannot be registered"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="catalog.serviceType is immutable"
	ServiceType string `json:"serviceType,omitempty"`

	// The advertised catalog service name (1 to 255 characters, no comma).
	// Defaults to metadata.name, resolved by the reconciler. Immutable,
	// compared by effective value: setting it on a CR that relied on the
	// fallback is a rename unless it names metadata.name.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="catalog.serviceName is immutable"
	ServiceName OpenStackName `json:"serviceName,omitempty"`

	// Consent to take over a pre-existing catalog service row of this type
	// and name; it then becomes owned and is deleted with the CR. Mutable.
	// +optional
	Adopt bool `json:"adopt,omitempty"`

	// Endpoint rows of this entry, at most one per interface. An entry
	// without endpoints registers the service row alone. Mutable.
	// +optional
	// +listType=map
	// +listMapKey=interface
	// +kubebuilder:validation:MaxItems=3
	Endpoints []KeystoneServiceEndpointSpec `json:"endpoints,omitempty"`
}

// KeystoneServiceEndpointSpec is one catalog endpoint row.
type KeystoneServiceEndpointSpec struct {
	// The catalog interface: public, internal or admin. Keys the list.
	// +required
	Interface EndpointInterface `json:"interface,omitempty"`

	// The URL registered in the catalog: http or https with a host, at most
	// 225 characters: Keystone's own bound on an endpoint URL (the url
	// parameter type of keystone/common/validation/parameter_types.py,
	// maxLength 225), tighter than K-ORC's EndpointResourceSpec.URL cap of
	// 1024, so a URL admitted here is never refused by Keystone with a 400.
	// It is never connected to.
	// +required
	// +kubebuilder:validation:MaxLength=225
	// +kubebuilder:validation:Pattern=`^https?://[^\s/]+`
	URL string `json:"url,omitempty"`
}

// KeystoneServiceAccountSpec is the service's Keystone account
// (docs/reference/keystoneservice.md, "KeystoneServiceAccountSpec").
type KeystoneServiceAccountSpec struct {
	// The Keystone user name (1 to 255 characters, no comma). The defaulting
	// webhook materializes metadata.name when unset. Immutable, compared by
	// effective value.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="account.userName is immutable"
	UserName OpenStackName `json:"userName,omitempty"`

	// The domain of the user and project (1 to 64 characters, no comma).
	// Unset resolves to the plane's spec.korc.adminCredential.domainName.
	// Immutable as declared: setting, changing or removing it after creation
	// is rejected, even when it names the resolved domain.
	// +optional
	DomainName KeystoneName `json:"domainName,omitempty"`

	// Consent to take over a pre-existing Keystone user of this name,
	// including its password. Mutable.
	// +optional
	Adopt bool `json:"adopt,omitempty"`

	// The project the user is associated with, referenced or created. Both
	// leaves are immutable.
	// +required
	// +kubebuilder:validation:XValidation:rule="self.name == oldSelf.name",message="account.project.name is immutable"
	// +kubebuilder:validation:XValidation:rule="(has(self.create) && self.create) == (has(oldSelf.create) && oldSelf.create)",message="account.project.create is immutable"
	Project ServiceAccountProjectSpec `json:"project,omitzero"`

	// Role names bound to the user on the project: at most 32, unique, each 1
	// to 64 characters without a comma. Roles are imported, never created.
	// Mutable.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	Roles []KeystoneName `json:"roles,omitempty"`

	// How the password is rotated (default mode Manual).
	// +optional
	// +kubebuilder:default={mode: Manual}
	Rotation *ServiceAccountRotationSpec `json:"rotation,omitempty"`
}

// KeystoneServiceStatus is the observed state of a registration
// (docs/reference/keystoneservice.md, "KeystoneServiceStatus").
type KeystoneServiceStatus struct {
	// CatalogReady, AccountReady and the aggregate Ready. Both sub-conditions
	// are always present; an undeclared block reads True/*NotDeclared.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// The metadata.generation last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Observed catalog entry; absent while no catalog block is declared.
	// +optional
	Catalog *KeystoneServiceCatalogStatus `json:"catalog,omitempty"`

	// Observed account; absent while no account block is declared.
	// +optional
	Account *KeystoneServiceAccountStatus `json:"account,omitempty"`
}

// KeystoneServiceCatalogStatus is the observed catalog entry.
type KeystoneServiceCatalogStatus struct {
	// The OpenStack service id; empty until the Service child is Available.
	// +optional
	ServiceID string `json:"serviceID,omitempty"`

	// One entry per declared interface.
	// +optional
	// +listType=map
	// +listMapKey=interface
	Endpoints []KeystoneServiceEndpointStatus `json:"endpoints,omitempty"`
}

// KeystoneServiceEndpointStatus is one observed endpoint row.
type KeystoneServiceEndpointStatus struct {
	// The interface the endpoint is published under. Keys the list.
	// +required
	Interface EndpointInterface `json:"interface"`

	// The OpenStack endpoint id; empty until the Endpoint child is Available.
	// +optional
	ID string `json:"id,omitempty"`
}

// KeystoneServiceAccountStatus is the observed account.
type KeystoneServiceAccountStatus struct {
	// Name of the delivered consumer Secret in this CR's namespace.
	// +optional
	SecretName string `json:"secretName,omitempty"`

	// The OpenStack user id; empty until the User is Available.
	// +optional
	UserID string `json:"userID,omitempty"`

	// The OpenStack project id; empty until the Project is Available.
	// +optional
	ProjectID string `json:"projectID,omitempty"`

	// Generation of the password applied to the user; increments on every
	// rotation.
	// +optional
	PasswordGeneration int64 `json:"passwordGeneration,omitempty"`

	// When the password was last rotated successfully.
	// +optional
	LastPasswordRotation *metav1.Time `json:"lastPasswordRotation,omitempty"`

	// The workloads in this CR's namespace that consume the consumer Secret
	// and where each is in its rollout to the delivered password generation
	// (docs/reference/consumers.md); at most 32 are listed.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Consumers []ConsumerStatus `json:"consumers,omitempty"`
}

// KeystoneService registers one service (catalog entry and/or account)
// against the identity plane of a ControlPlane.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={c5c3,orderhub},shortName=kss
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].reason`
// +kubebuilder:printcolumn:name="ControlPlane",type=string,JSONPath=`.spec.controlPlaneRef.name`
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.catalog.serviceType`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KeystoneService struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The desired registration.
	// +required
	Spec KeystoneServiceSpec `json:"spec,omitzero"`
	// The observed registration.
	// +optional
	Status KeystoneServiceStatus `json:"status,omitzero"`
}

// KeystoneServiceList is a list of KeystoneServices.
// +kubebuilder:object:root=true
type KeystoneServiceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KeystoneService `json:"items"`
}

// EffectiveServiceName is the catalog service name a registration
// advertises: spec.catalog.serviceName, or metadata.name when unset. Empty
// when no catalog block is declared.
func (k *KeystoneService) EffectiveServiceName() string {
	if k.Spec.Catalog == nil {
		return ""
	}
	if k.Spec.Catalog.ServiceName != "" {
		return string(k.Spec.Catalog.ServiceName)
	}
	return k.Name
}

// EffectiveUserName is the Keystone user name of the account:
// spec.account.userName, or metadata.name when unset. Empty when no account
// block is declared.
func (k *KeystoneService) EffectiveUserName() string {
	if k.Spec.Account == nil {
		return ""
	}
	if k.Spec.Account.UserName != "" {
		return string(k.Spec.Account.UserName)
	}
	return k.Name
}

// ControlPlaneNamespace is the namespace the referenced ControlPlane is
// resolved in: spec.controlPlaneRef.namespace, or the CR's own namespace.
func (k *KeystoneService) ControlPlaneNamespace() string {
	if k.Spec.ControlPlaneRef.Namespace != "" {
		return k.Spec.ControlPlaneRef.Namespace
	}
	return k.Namespace
}

// OnPlane reports whether the registration references the ControlPlane
// namespace/name (ControlPlaneNamespace for an unset namespace).
func (k *KeystoneService) OnPlane(namespace, name string) bool {
	return k.Spec.ControlPlaneRef.Name == name && k.ControlPlaneNamespace() == namespace
}

func init() {
	SchemeBuilder.Register(&KeystoneService{}, &KeystoneServiceList{})
}
