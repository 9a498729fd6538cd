package v1alpha1

// NamePattern is the pattern of OpenStackName and KeystoneName (keep the
// Pattern markers below in step): no comma (K-ORC's rule), no control
// character (Unicode category Cc: NUL, C0, DEL, C1) and no bidirectional
// control (Unicode's Bidi_Control property, https://www.unicode.org/reports/tr9/#Directional_Formatting_Characters:
// U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), which Keystone would
// store and which let a name display as another (docs/reference/keystoneuser.md,
// "Defaulting and Validation Summary"). Every printable name without a comma matches.
const NamePattern = `^[^,\p{Cc}\x{061C}\x{200E}\x{200F}\x{202A}-\x{202E}\x{2066}-\x{2069}]+$`

// OpenStackName is a Keystone user or catalog service name: 1 to 255
// characters matching NamePattern. It is K-ORC's OpenStackName filter
// narrowed to printable names, so a value admitted here is never rejected by
// the K-ORC child it is projected into.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=255
// +kubebuilder:validation:Pattern=`^[^,\p{Cc}\x{061C}\x{200E}\x{200F}\x{202A}-\x{202E}\x{2066}-\x{2069}]+$`
type OpenStackName string

// KeystoneName is a Keystone project, role or domain name: 1 to 64 characters
// matching NamePattern. It mirrors K-ORC v2.6.0's KeystoneName (MaxLength=64), which
// is stricter than Keystone's own 255 for these kinds; the c5c3 upstream
// (github.com/blut/c5c3-forge operators/c5c3/api/v1alpha1) allows 255 and
// so admits names its K-ORC children then reject.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=64
// +kubebuilder:validation:Pattern=`^[^,\p{Cc}\x{061C}\x{200E}\x{200F}\x{202A}-\x{202E}\x{2066}-\x{2069}]+$`
type KeystoneName string

// ControlPlaneRefSpec names the ControlPlane an object registers against or
// orders from. Each kind carries its own immutability rules on the field that
// holds it (docs/reference/keystoneservice.md, "ControlPlaneRefSpec",
// docs/reference/keystoneapplicationcredential.md,
// "KeystoneApplicationCredentialSpec", controlPlaneRef).
type ControlPlaneRefSpec struct {
	// Name of the ControlPlane CR. The ControlPlane does not have to exist at
	// admission time: a dangling reference surfaces as a ControlPlaneNotFound
	// condition, not as an admission error.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// Namespace of the ControlPlane CR, an RFC-1123 label of at most 63
	// characters. Empty means the object's own namespace.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`
}

// OrderRef names another order in the referring order's own namespace, on the
// referring order's own cluster.
type OrderRef struct {
	// Name of the referenced order (1 to 63 characters).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
}

// ServiceAccountProjectSpec is the project a service account is associated
// with, referenced or created. It is shared by ControlPlane and
// KeystoneService; it carries no freeze of its own, so each user of the type
// adds its own transition rules (docs/reference/keystoneservice.md,
// "ServiceAccountProjectSpec").
type ServiceAccountProjectSpec struct {
	// The OpenStack project name: 1 to 64 characters without a comma
	// (K-ORC's KeystoneName).
	// +required
	Name KeystoneName `json:"name,omitempty"`

	// Whether the project is created and owned (true) or a pre-existing
	// project is referenced (false, the default). A referenced project is
	// imported unmanaged and never created or deleted. A created project is
	// gated by a collision probe and deleted with its owner.
	// +optional
	// +kubebuilder:default=false
	Create bool `json:"create,omitempty"`
}

// RotationMode selects how a service account's password is rotated.
// +kubebuilder:validation:Enum=Manual;Scheduled
type RotationMode string

const (
	// RotationModeManual rotates only when a CredentialRotation requests it.
	RotationModeManual RotationMode = "Manual"
	// RotationModeScheduled is accepted by the schema; scheduling is deferred
	// and the reconciler emits a ScheduledRotationDeferred Normal event.
	RotationModeScheduled RotationMode = "Scheduled"
)

// ServiceAccountRotationSpec is how a service account's password is rotated.
// Shared by ControlPlane and KeystoneService
// (docs/reference/keystoneservice.md, "ServiceAccountRotationSpec").
type ServiceAccountRotationSpec struct {
	// Manual (the default) rotates the password only when a CredentialRotation
	// requests it. Scheduled is accepted but its scheduling is deferred: the
	// reconciler emits a ScheduledRotationDeferred Normal event.
	// +optional
	// +kubebuilder:default=Manual
	Mode RotationMode `json:"mode,omitempty"`
}

// SecretRefSpec names a key of a Secret in the referring object's namespace.
type SecretRefSpec struct {
	// Name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Key in the Secret's data.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key,omitempty"`
}
