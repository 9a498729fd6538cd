package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KeystoneMode says who runs the Keystone a ControlPlane registers against.
// +kubebuilder:validation:Enum=Managed;External
type KeystoneMode string

const (
	// KeystoneModeManaged: the Keystone is deployed for this ControlPlane and
	// reached at its in-cluster URL.
	KeystoneModeManaged KeystoneMode = "Managed"
	// KeystoneModeExternal: a pre-existing (brownfield) Keystone reached at
	// spec.services.keystone.external.authURL.
	KeystoneModeExternal KeystoneMode = "External"
)

// EndpointInterface is a Keystone catalog interface.
// +kubebuilder:validation:Enum=public;internal;admin
type EndpointInterface string

const (
	// EndpointInterfacePublic is the public catalog interface.
	EndpointInterfacePublic EndpointInterface = "public"
	// EndpointInterfaceInternal is the internal catalog interface.
	EndpointInterfaceInternal EndpointInterface = "internal"
	// EndpointInterfaceAdmin is the admin catalog interface.
	EndpointInterfaceAdmin EndpointInterface = "admin"
)

// ControlPlaneSpec is the identity-plane subset of the upstream c5c3
// ControlPlane (github.com/blut/c5c3-forge
// operators/c5c3/api/v1alpha1/controlplane_types.go;
// docs/reference/controlplane.md), with upstream field names so manifests port,
// plus the two consent lists the order kinds read.
type ControlPlaneSpec struct {
	// The OpenStack release, e.g. 2025.2. Carried for manifest portability
	// with the upstream ControlPlane; the hub does not read it.
	// +optional
	// +kubebuilder:validation:Pattern=`^\d{4}\.[12]$`
	OpenStackRelease string `json:"openStackRelease,omitempty"`

	// The region endpoints and clouds.yaml documents are written for.
	// +optional
	// +kubebuilder:default=RegionOne
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	Region string `json:"region,omitempty"`

	// The ESO store the plane's Secrets are pushed to and read from. Unset
	// means the operator-provisioned per-namespace SecretStore
	// openbao-tenant-store.
	// +optional
	SecretStoreRef *SecretStoreRefSpec `json:"secretStoreRef,omitempty"`

	// The services of the plane. Only Keystone placement and reachability
	// (and Horizon's dedicated namespace) matter to the hub.
	// +optional
	Services ServicesSpec `json:"services,omitempty"`

	// The K-ORC identity the plane authenticates its children with, and the
	// namespaces allowed to register KeystoneServices against it.
	// +required
	KORC KORCSpec `json:"korc"`

	// Namespaces, on the management cluster or on a registered target
	// cluster, that may order KeystoneUsers, KeystoneProjects,
	// KeystoneRoleAssignments and KeystoneApplicationCredentials from this
	// plane. An order whose namespace and cluster have no entry is frozen with
	// NamespaceNotAssigned. Keyed by cluster and namespace.
	// +optional
	// +listType=map
	// +listMapKey=cluster
	// +listMapKey=namespace
	// +kubebuilder:validation:MaxItems=256
	NamespaceAssignments []NamespaceAssignment `json:"namespaceAssignments,omitempty"`
}

// SecretStoreRefSpec names an ESO SecretStore or ClusterSecretStore.
type SecretStoreRefSpec struct {
	// SecretStore (namespaced, resolved in each delivery namespace) or
	// ClusterSecretStore.
	// +required
	// +kubebuilder:validation:Enum=ClusterSecretStore;SecretStore
	Kind string `json:"kind"`

	// Name of the store.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// ServicesSpec holds the per-service blocks the hub reads.
type ServicesSpec struct {
	// The plane's Keystone.
	// +optional
	Keystone *ServiceKeystoneSpec `json:"keystone,omitempty"`

	// The plane's Horizon. Only its dedicated namespace matters here: it is
	// one of the namespaces the plane owns, so KeystoneServices there need no
	// allowlist entry.
	// +optional
	Horizon *ServiceHorizonSpec `json:"horizon,omitempty"`
}

// ServiceKeystoneSpec is where the plane's Keystone runs and how it is reached.
// +kubebuilder:validation:XValidation:rule="(has(self.mode) && self.mode == 'External') == has(self.external)",message="external is required when mode is External and forbidden otherwise"
// +kubebuilder:validation:XValidation:rule="!(has(self.mode) && self.mode == 'External') || (!has(self.publicEndpoint) && !has(self.gateway) && !has(self.namespace))",message="publicEndpoint, gateway and namespace are forbidden when mode is External"
type ServiceKeystoneSpec struct {
	// Managed (the default): a Keystone deployed for this plane at its
	// in-cluster URL. External: a pre-existing Keystone at external.authURL.
	// +optional
	// +kubebuilder:default=Managed
	Mode KeystoneMode `json:"mode,omitempty"`

	// How to reach an External Keystone. Required when mode is External,
	// forbidden otherwise.
	// +optional
	External *ExternalKeystoneSpec `json:"external,omitempty"`

	// The public Keystone URL of a Managed plane, e.g.
	// https://keystone.example.com/v3. Written into clouds.yaml documents
	// delivered to target clusters, which cannot reach the in-cluster Service.
	// Forbidden in External mode.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^https?://`
	PublicEndpoint string `json:"publicEndpoint,omitempty"`

	// The Gateway a Managed Keystone is published through. When
	// publicEndpoint is unset, https://<hostname>/v3 is the public URL.
	// Forbidden in External mode.
	// +optional
	Gateway *GatewaySpec `json:"gateway,omitempty"`

	// A dedicated namespace for a Managed Keystone. Forbidden in External
	// mode.
	// +optional
	Namespace *ServiceNamespaceSpec `json:"namespace,omitempty"`
}

// ExternalKeystoneSpec is how an External Keystone is reached.
type ExternalKeystoneSpec struct {
	// The Keystone v3 URL, e.g. https://keystone.example.com:5000/v3
	// (http or https, at most 2048 characters, no query and no fragment:
	// the token request appends auth/tokens to it).
	// +required
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://[^\s/]+`
	// +kubebuilder:validation:XValidation:rule="!self.contains('?') && !self.contains('#')",message="authURL must not carry a query or a fragment"
	AuthURL string `json:"authURL"`

	// The catalog interface K-ORC uses (default public).
	// +optional
	// +kubebuilder:default=public
	EndpointType EndpointInterface `json:"endpointType,omitempty"`

	// A Secret in the plane's namespace holding the CA bundle that verifies
	// authURL (key default ca.crt).
	// +optional
	CABundleSecretRef *SecretRefSpec `json:"caBundleSecretRef,omitempty"`
}

// GatewaySpec is the Gateway a Managed Keystone is published through.
type GatewaySpec struct {
	// The public hostname, without scheme or path.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Hostname string `json:"hostname"`
}

// NamespaceLifecycle says who owns a dedicated service namespace.
// +kubebuilder:validation:Enum=Managed;External
type NamespaceLifecycle string

// ServiceNamespaceSpec is a dedicated namespace for a service of the plane.
type ServiceNamespaceSpec struct {
	// The namespace name (RFC-1123 label, at most 63 characters).
	// +required
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// Managed (the default): the operator creates and deletes the namespace.
	// External: it exists already and is left alone.
	// +optional
	// +kubebuilder:default=Managed
	Lifecycle NamespaceLifecycle `json:"lifecycle,omitempty"`
}

// ServiceHorizonSpec is the Horizon block; only its namespace is read.
type ServiceHorizonSpec struct {
	// A dedicated namespace for Horizon.
	// +optional
	Namespace *ServiceNamespaceSpec `json:"namespace,omitempty"`
}

// KORCSpec is the K-ORC side of the plane.
type KORCSpec struct {
	// The admin identity K-ORC authenticates every child with.
	// +optional
	// +kubebuilder:default={}
	AdminCredential AdminCredentialSpec `json:"adminCredential,omitempty"`

	// Which namespaces beyond the plane's own may register KeystoneServices.
	// +optional
	ServiceRegistrations ServiceRegistrationsSpec `json:"serviceRegistrations,omitempty"`
}

// AdminCredentialSpec is the plane's admin identity and where its credentials
// live in the plane's namespace.
type AdminCredentialSpec struct {
	// The Secret holding the admin application-credential clouds.yaml, used by
	// unmanaged imports and probes.
	// +optional
	// +kubebuilder:default={}
	CloudCredentialsRef CloudCredentialsRefSpec `json:"cloudCredentialsRef,omitempty"`

	// The Secret key holding the admin password.
	// +optional
	// +kubebuilder:default={}
	PasswordSecretRef PasswordSecretRefSpec `json:"passwordSecretRef,omitempty"`

	// The admin user name (default admin). A KeystoneService resolving to this
	// user in domainName is refused.
	// +optional
	// +kubebuilder:default=admin
	UserName OpenStackName `json:"userName,omitempty"`

	// The admin project name (default admin).
	// +optional
	// +kubebuilder:default=admin
	ProjectName KeystoneName `json:"projectName,omitempty"`

	// The domain of the admin user and project (default Default). Orders
	// and registrations that leave their domain unset resolve to it.
	// +optional
	// +kubebuilder:default=Default
	DomainName KeystoneName `json:"domainName,omitempty"`
}

// CloudCredentialsRefSpec names the admin clouds.yaml Secret.
type CloudCredentialsRefSpec struct {
	// The cloud entry name in clouds.yaml (default admin).
	// +optional
	// +kubebuilder:default=admin
	// +kubebuilder:validation:MaxLength=255
	CloudName string `json:"cloudName,omitempty"`

	// The Secret name in the plane's namespace (default k-orc-clouds-yaml).
	// +optional
	// +kubebuilder:default=k-orc-clouds-yaml
	// +kubebuilder:validation:MaxLength=253
	SecretName string `json:"secretName,omitempty"`
}

// PasswordSecretRefSpec names the admin password Secret key.
type PasswordSecretRefSpec struct {
	// The Secret name in the plane's namespace (default keystone-admin).
	// +optional
	// +kubebuilder:default=keystone-admin
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// The key holding the password (default password).
	// +optional
	// +kubebuilder:default=password
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key,omitempty"`
}

// ServiceRegistrationsSpec is consent layer 3 for KeystoneServices
// (docs/reference/keystoneservice.md, "Namespace consent").
type ServiceRegistrationsSpec struct {
	// Namespaces, besides the plane's own and its dedicated service
	// namespaces, whose KeystoneServices the plane admits. An admission gate,
	// not a revocation tool: removing a namespace freezes its registrations
	// and leaves what they minted in place.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	AllowedNamespaces []string `json:"allowedNamespaces,omitempty"`
}

// NamespaceAssignment assigns one namespace on one cluster to this plane for
// ordering identity objects.
type NamespaceAssignment struct {
	// The target cluster the namespace is on: the name of its registered
	// kubeconfig Secret. Empty (the default) is the management cluster. At
	// most 63 characters, because it is written into a label value.
	// +optional
	// +kubebuilder:default=""
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9.]*[a-z0-9])?)?$`
	Cluster string `json:"cluster"`

	// The assigned namespace (RFC-1123 label).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace"`

	// The Keystone roles a KeystoneRoleAssignment in this namespace may
	// assign. Empty allows none. KeystoneApplicationCredentials do not read
	// it: a credential carries the roles the user already holds.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	AllowedRoles []KeystoneName `json:"allowedRoles,omitempty"`

	// The Keystone domains a KeystoneUser or KeystoneProject order in this
	// namespace may create its user or project in (compared as Keystone
	// compares names). The plane's admin domain and its KeystoneServices'
	// account domains are open only when listed; absent, every other domain
	// is (docs/reference/controlplane.md, "Tenant names"; docs/upgrading.md).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Domains []KeystoneName `json:"domains,omitempty"`

	// The prefix every user and project name a KeystoneUser or
	// KeystoneProject order in this namespace creates must start with
	// (case-sensitive). Absent: no prefix.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^[^,\s\p{Cc}\x{061C}\x{200E}\x{200F}\x{202A}-\x{202E}\x{2066}-\x{2069}]+$`
	NamePrefix string `json:"namePrefix,omitempty"`

	// How many rotations the orders in this namespace may start per hour,
	// together: raised spec.passwordGeneration or spec.credentialGeneration,
	// scheduled rotations and credential scope changes. Excess rotations wait
	// and say so in a condition; recovering a lost, expired or rejected
	// credential is never held. Absent: 60
	// (docs/reference/controlplane.md, "Rotation budget").
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	RotationsPerHour *int32 `json:"rotationsPerHour,omitempty"`
}

// ControlPlaneStatus is the observed state of the plane, as far as the order
// kinds read it.
type ControlPlaneStatus struct {
	// AdminCredentialReady (gates every order and registration) and the
	// aggregate Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// The metadata.generation last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// ControlPlane is the identity plane orders and registrations are made
// against. At most one per namespace (validating webhook); the K-ORC children
// of every order live in its namespace.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={c5c3,orderhub},shortName=cpl
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].reason`
// +kubebuilder:printcolumn:name="Release",type=string,JSONPath=`.spec.openStackRelease`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ControlPlane struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The desired identity plane.
	// +required
	Spec ControlPlaneSpec `json:"spec"`
	// The observed identity plane.
	// +optional
	Status ControlPlaneStatus `json:"status,omitzero"`
}

// ControlPlaneList is a list of ControlPlanes.
// +kubebuilder:object:root=true
type ControlPlaneList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ControlPlane `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ControlPlane{}, &ControlPlaneList{})
}
