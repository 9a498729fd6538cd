package v1alpha1

// Admission messages of the CRD rules (CEL x-kubernetes-validations), the
// same strings as the +kubebuilder:validation:XValidation markers on the
// types. Markers cannot reference constants, so TestMessages_MatchCRDs pins
// every constant to the generated CRDs; the rejection corpora and the
// KeystoneService webhook's defense-in-depth mirror use these constants.
const (
	// KeystoneService (docs/reference/keystoneservice.md, "Defaulting and
	// Validation Summary").

	MsgKeystoneServiceNoBlock            = "at least one of spec.catalog or spec.account must be set"
	MsgControlPlaneRefNameImmutable      = "controlPlaneRef.name is immutable"
	MsgServiceTypeIdentity               = "catalog.serviceType identity is owned by the ControlPlane and cannot be registered"
	MsgServiceTypeImmutable              = "catalog.serviceType is immutable"
	MsgServiceNameImmutable              = "catalog.serviceName is immutable"
	MsgUserNameImmutable                 = "account.userName is immutable"
	MsgAccountDomainNameImmutable        = "account.domainName is immutable"
	MsgProjectNameImmutable              = "account.project.name is immutable"
	MsgProjectCreateImmutable            = "account.project.create is immutable"
	MsgControlPlaneRefNamespaceImmutable = "controlPlaneRef.namespace is immutable"

	// KeystoneApplicationCredential
	// (docs/reference/keystoneapplicationcredential.md, "Defaulting and
	// Validation Summary", quoted verbatim), also used by the other order
	// kinds.

	MsgUserRefImmutable               = "userRef is immutable"
	MsgProjectRefImmutable            = "projectRef is immutable"
	MsgCredentialGenerationIncrease   = "credentialGeneration may only increase"
	MsgIntervalZeroOrMinute           = "rotation.interval is 0s or at least 1m"
	MsgIntervalMax                    = "rotation.interval is at most 87600h"
	MsgGracePeriodNotNegative         = "rotation.gracePeriod is not negative"
	MsgGracePeriodShorterThanInterval = "rotation.gracePeriod must be shorter than rotation.interval"
	MsgMetadataNameMax63              = "metadata.name must be at most 63 bytes"

	// KeystoneUser, KeystoneProject, KeystoneRoleAssignment.

	MsgOrderUserNameImmutable     = "userName is immutable"
	MsgOrderDomainNameImmutable   = "domainName is immutable"
	MsgDefaultProjectRefImmutable = "defaultProjectRef is immutable"
	MsgPasswordGenerationIncrease = "passwordGeneration may only increase"
	MsgOrderProjectNameImmutable  = "projectName is immutable"
	MsgRoleImmutable              = "role is immutable"
	MsgRoleNameNoComma            = "a role name has no comma"

	// ControlPlane and CredentialRotation.

	MsgExternalRequiredIffExternalMode = "external is required when mode is External and forbidden otherwise"
	MsgExternalForbidsManagedFields    = "publicEndpoint, gateway and namespace are forbidden when mode is External"
	MsgAuthURLNoQueryOrFragment        = "authURL must not carry a query or a fragment"
	MsgRotationTargetSelector          = "exactly one of serviceAccount or keystoneService is required when target is serviceAccountPassword, and neither is allowed otherwise"
)
