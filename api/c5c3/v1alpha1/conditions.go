package v1alpha1

// Condition types and reasons of the hub kinds: the single source of truth
// for every condition the hub writes. Never spell one of these inline.
//
// Reasons are grouped per condition. A reason that several conditions share
// is declared once, in the first group that uses it, and listed by name in
// the others; the reference pages share them verbatim across kinds so that a
// reader comparing a registration to its plane learns one vocabulary
// (docs/reference/keystoneservice.md, "Conditions",
// docs/reference/keystoneapplicationcredential.md, "Conditions"). Each reason's
// comment says when it appears and, for False reasons, what to do about it.

// Aggregate condition, on every kind.
const (
	// ConditionReady is the aggregate of a kind's sub-conditions.
	ConditionReady = "Ready"

	// ReasonAllReady (Ready=True): every sub-condition is present and True.
	ReasonAllReady = "AllReady"
	// ReasonNotAllReady (Ready=False): at least one sub-condition is not
	// True; read the sub-conditions for the cause.
	ReasonNotAllReady = "NotAllReady"
)

// Gates shared by every sub-condition of every order and registration
// (KeystoneService: CatalogReady and AccountReady; KeystoneApplicationCredential:
// CredentialReady and DeliveryReady; KeystoneUser: UserReady and
// DeliveryReady; KeystoneProject: ProjectReady; KeystoneRoleAssignment:
// AssignmentReady). Each is written onto every declared block.
const (
	// ReasonControlPlaneNotFound (False): spec.controlPlaneRef does not
	// resolve. Deferred, not failed: GitOps may apply the object first.
	ReasonControlPlaneNotFound = "ControlPlaneNotFound"
	// ReasonWaitingForAdminCredential (False): the ControlPlane's
	// AdminCredentialReady is not True, so K-ORC cannot reach Keystone yet.
	ReasonWaitingForAdminCredential = "WaitingForAdminCredential"
	// ReasonNamespaceNotAllowed (False, KeystoneService only): the
	// ControlPlane does not admit registrations from this namespace. Nothing
	// is projected. Add the namespace to
	// spec.korc.serviceRegistrations.allowedNamespaces.
	ReasonNamespaceNotAllowed = "NamespaceNotAllowed"
	// ReasonNamespaceNotAssigned (False, order kinds): no
	// spec.namespaceAssignments entry assigns the order's namespace on its
	// cluster, or, for an order on a target cluster, spec.controlPlaneRef
	// does not resolve. The order is frozen: nothing is created, rotated,
	// delivered, repaired or swept.
	ReasonNamespaceNotAssigned = "NamespaceNotAssigned"
	// ReasonClusterNameTooLong (False, order kinds): the order lives on a
	// target cluster whose name is longer than the 63 characters a label
	// value carries. Re-register the cluster under a shorter name.
	ReasonClusterNameTooLong = "ClusterNameTooLong"
)

// Refusal shared by every sub-condition of every order and registration,
// written onto each like the gates above (docs/reference/keystoneuser.md,
// "Child ownership").
const (
	// ReasonChildOwnedElsewhere (False): an object of a child's name (K-ORC
	// object, PushSecret, ExternalSecret) exists whose ownership labels name
	// another order, or none; the hub leaves it untouched. Have it deleted if
	// it is stray, or rename the order.
	ReasonChildOwnedElsewhere = "ChildOwnedElsewhere"
)

// Tenant-name gates of KeystoneUser (UserReady, DeliveryReady) and
// KeystoneProject (ProjectReady), written onto every declared block like the
// shared gates (docs/reference/controlplane.md, "Tenant names"). Nothing
// reaches Keystone while one is closed.
const (
	// ReasonTenantDomainNotAllowed (False): the order's effective domain is
	// not among the domains its namespace's assignment lists. Choose a
	// listed domain, or have the plane's operator list it.
	ReasonTenantDomainNotAllowed = "TenantDomainNotAllowed"
	// ReasonTenantNamePrefix (False): the effective user or project name
	// does not start with the assignment's namePrefix. Rename it.
	ReasonTenantNamePrefix = "TenantNamePrefix"
)

// Reasons K-ORC failures are classified into against an External-mode
// ControlPlane, replacing a bounded wait on any sub-condition whenever the
// failure can be classified (docs/reference/keystoneservice.md, "Conditions";
// upstream c5c3 github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/external_mode.go).
const (
	// ReasonAuthenticationFailed (False): Keystone answered 401.
	ReasonAuthenticationFailed = "AuthenticationFailed"
	// ReasonCredentialDrift (False): the admin credential is no longer
	// allowed to act (403 on identity:create_application_credential), or the
	// delivered admin clouds.yaml no longer matches the minted credential.
	ReasonCredentialDrift = "CredentialDrift"
	// ReasonEndpointUnreachable (False): no such host, connection refused,
	// dial or i/o timeout.
	ReasonEndpointUnreachable = "EndpointUnreachable"
	// ReasonTLSVerificationFailed (False): the Keystone certificate does not
	// verify against the configured CA bundle.
	ReasonTLSVerificationFailed = "TLSVerificationFailed"
	// ReasonCatalogEndpointMismatch (False): no suitable endpoint could be
	// found in the service catalog for the configured endpoint type.
	ReasonCatalogEndpointMismatch = "CatalogEndpointMismatch"
)

// KeystoneService: CatalogReady (docs/reference/keystoneservice.md,
// "Conditions").
const (
	// ConditionCatalogReady reports the catalog block.
	ConditionCatalogReady = "CatalogReady"

	// ReasonCatalogNotDeclared (True): no catalog block is declared.
	ReasonCatalogNotDeclared = "CatalogNotDeclared"
	// ReasonCatalogRegistered (True): the service row and every declared
	// endpoint row are registered and Available.
	ReasonCatalogRegistered = "CatalogRegistered"
	// ReasonServiceCollision (False): a catalog entry of this type and name
	// already exists and catalog.adopt is not set. Nothing was touched. Set
	// catalog.adopt: true to take it over.
	ReasonServiceCollision = "ServiceCollision"
	// ReasonProbingForCollision (False; also AccountReady, UserReady,
	// ProjectReady): the collision probe has not resolved yet.
	ReasonProbingForCollision = "ProbingForCollision"
	// ReasonWaitingForCatalog (False): the Service or an Endpoint child is
	// registered but not yet Available.
	ReasonWaitingForCatalog = "WaitingForCatalog"
	// ReasonCatalogFailed (False): K-ORC reported a terminal error on the
	// Service or an Endpoint; it has stopped retrying.
	ReasonCatalogFailed = "CatalogFailed"
	// ReasonCatalogError (False): a Kubernetes-level failure applying a
	// catalog child (not a K-ORC or OpenStack failure).
	ReasonCatalogError = "CatalogError"
	// Also: ReasonControlPlaneNotFound, ReasonNamespaceNotAllowed,
	// ReasonWaitingForAdminCredential and the External-mode reasons.
)

// KeystoneService: AccountReady (docs/reference/keystoneservice.md,
// "Conditions").
const (
	// ConditionAccountReady reports the account block.
	ConditionAccountReady = "AccountReady"

	// ReasonAccountNotDeclared (True): no account block is declared.
	ReasonAccountNotDeclared = "AccountNotDeclared"
	// ReasonAccountProvisioned (True): the account exists in Keystone with
	// its roles bound, and its credentials are materialized in the consumer
	// Secret.
	ReasonAccountProvisioned = "AccountProvisioned"
	// ReasonServiceAccountCollision (False): the user, or a create: true
	// project, already exists without consent, or the registration resolves
	// to the plane's admin identity. Set account.adopt: true (user) or
	// project.create: false (project); the admin identity is never
	// registrable.
	ReasonServiceAccountCollision = "ServiceAccountCollision"
	// ReasonSecretStoreNotReady (False; also ControlPlane
	// AdminCredentialReady, KeystoneUser UserReady): the secret store in the
	// delivery namespace is not ready; the secret backend is unreachable.
	ReasonSecretStoreNotReady = "SecretStoreNotReady"
	// ReasonWaitingForServiceAccounts (False): a project, user, Role import or
	// RoleAssignment is not yet Available; K-ORC has not applied the current
	// password yet; or the OpenBao round-trip has not materialized the Secret
	// yet. The message names the blocking dependency.
	ReasonWaitingForServiceAccounts = "WaitingForServiceAccounts"
	// ReasonServiceAccountsFailed (False): K-ORC reported a terminal error on
	// the account or one of its roles.
	ReasonServiceAccountsFailed = "ServiceAccountsFailed"
	// ReasonServiceAccountError (False): a Kubernetes-level failure
	// projecting or delivering the account.
	ReasonServiceAccountError = "ServiceAccountError"
	// Also: ReasonProbingForCollision, ReasonControlPlaneNotFound,
	// ReasonNamespaceNotAllowed, ReasonWaitingForAdminCredential, the
	// External-mode reasons, and ReasonDeliveryRefused (a Secret of the
	// consumer Secret's name exists that the registration does not own).
)

// KeystoneApplicationCredential: CredentialReady
// (docs/reference/keystoneapplicationcredential.md, "Conditions").
const (
	// ConditionCredentialReady reports the Keystone side of a credential
	// order.
	ConditionCredentialReady = "CredentialReady"

	// ReasonCredentialMinted (True): the delivered credential exists in
	// Keystone. While a successor is created the message names both
	// generations.
	ReasonCredentialMinted = "CredentialMinted"
	// ReasonUserNotFound (False; also AssignmentReady): spec.userRef names no
	// KeystoneUser in the order's namespace.
	ReasonUserNotFound = "UserNotFound"
	// ReasonProjectNotFound (False; also AssignmentReady, UserReady): the
	// project reference names no KeystoneProject in the order's namespace.
	ReasonProjectNotFound = "ProjectNotFound"
	// ReasonControlPlaneMismatch (False; also AssignmentReady, UserReady): a
	// referenced order belongs to another ControlPlane.
	ReasonControlPlaneMismatch = "ControlPlaneMismatch"
	// ReasonWaitingForUser (False; also AssignmentReady): the KeystoneUser is
	// not provisioned yet (the message names its UserReady reason), or the
	// password of its current generation is not available.
	ReasonWaitingForUser = "WaitingForUser"
	// ReasonWaitingForProject (False; also AssignmentReady, UserReady): the
	// KeystoneProject is not provisioned yet or reports no project name.
	ReasonWaitingForProject = "WaitingForProject"
	// ReasonNoRoleOnProject (False): no KeystoneRoleAssignment in the
	// namespace has assigned the user a role on the project (none reports
	// status.roleID).
	ReasonNoRoleOnProject = "NoRoleOnProject"
	// ReasonRoleNotHeld (False, CredentialReady): spec.roles of a
	// KeystoneApplicationCredential names a role the user does not hold on
	// the project in Keystone; no credential with that scope is created.
	ReasonRoleNotHeld = "RoleNotHeld"
	// ReasonWaitingForCABundle (False): the Keystone CA bundle the
	// ControlPlane references is not available, so the operator cannot write
	// the document K-ORC authenticates with.
	ReasonWaitingForCABundle = "WaitingForCABundle"
	// ReasonWaitingForCredential (False; also DeliveryReady): K-ORC has not
	// made the first credential Available yet; on DeliveryReady, no
	// credential exists yet or the Secret does not carry the current one.
	ReasonWaitingForCredential = "WaitingForCredential"
	// ReasonCredentialFailed (False): K-ORC reported a terminal error on a
	// credential generation, with its message. Raise
	// spec.credentialGeneration to replace it.
	ReasonCredentialFailed = "CredentialFailed"
	// ReasonTransportErrorRetryFailed (False): clearing a latched transport
	// error from a credential failed.
	ReasonTransportErrorRetryFailed = "TransportErrorRetryFailed"
	// ReasonCredentialError (False): a Kubernetes-level failure writing or
	// reading the credential's children.
	ReasonCredentialError = "CredentialError"
	// Also: ReasonControlPlaneNotFound, ReasonNamespaceNotAssigned,
	// ReasonClusterNameTooLong, ReasonWaitingForAdminCredential and the
	// External-mode reasons.
)

// KeystoneApplicationCredential and KeystoneUser: DeliveryReady
// (docs/reference/keystoneapplicationcredential.md, "Conditions").
const (
	// ConditionDeliveryReady reports the Secret delivered beside an order.
	ConditionDeliveryReady = "DeliveryReady"

	// ReasonDelivered (True): the Secret beside the order carries the
	// current credential or password.
	ReasonDelivered = "Delivered"
	// ReasonKeystoneNotPublished (False): the order lives on a cluster that
	// cannot reach the in-cluster Keystone Service and the ControlPlane
	// publishes no public endpoint. Set spec.services.keystone.publicEndpoint
	// or gateway on the plane.
	ReasonKeystoneNotPublished = "KeystoneNotPublished"
	// ReasonBackupNotSynced (False): ESO has not pushed the current document
	// to OpenBao yet.
	ReasonBackupNotSynced = "BackupNotSynced"
	// ReasonDeliveryRefused (False): a Secret of the delivered name exists
	// that the order does not own. It is never taken over: rename the order
	// or remove the Secret.
	ReasonDeliveryRefused = "DeliveryRefused"
	// ReasonDeliveryError (False): a Kubernetes-level failure writing or
	// reading a delivery object, with the error text.
	ReasonDeliveryError = "DeliveryError"
	// ReasonWaitingForPassword (False, KeystoneUser): K-ORC has not applied
	// the password of the current generation yet, so there is nothing new to
	// deliver.
	ReasonWaitingForPassword = "WaitingForPassword"
	// Also: ReasonWaitingForCredential (KeystoneApplicationCredential) and the
	// shared gates.
)

// KeystoneUser: UserReady (docs/reference/keystoneuser.md).
const (
	// ConditionUserReady reports the Keystone user of a KeystoneUser order.
	ConditionUserReady = "UserReady"

	// ReasonUserProvisioned (True): the user exists in Keystone and K-ORC has
	// applied the password of status.passwordGeneration.
	ReasonUserProvisioned = "UserProvisioned"
	// ReasonUserCollision (False): a user of this name already exists in the
	// effective domain and the order does not own it, or the order resolves
	// to the plane's admin identity. Orders never adopt: choose another
	// userName.
	ReasonUserCollision = "UserCollision"
	// ReasonWaitingForKeystoneUser (False): the K-ORC User is registered but
	// not yet Available, or has not applied the current password yet.
	ReasonWaitingForKeystoneUser = "WaitingForKeystoneUser"
	// ReasonUserFailed (False): K-ORC reported a terminal error on the user.
	ReasonUserFailed = "UserFailed"
	// ReasonUserError (False): a Kubernetes-level failure projecting the
	// user.
	ReasonUserError = "UserError"
	// ReasonRotationBudgetExhausted (UserReady=False; CredentialReady=True):
	// a raised generation or a scheduled rotation waits for the namespace's
	// rotation budget (spec.namespaceAssignments[].rotationsPerHour on the
	// ControlPlane); the delivered password or credential stays valid and
	// the rotation starts by itself once the budget allows.
	ReasonRotationBudgetExhausted = "RotationBudgetExhausted"
	// ReasonReferencedByApplicationCredentials (False; also ProjectReady,
	// AssignmentReady): the order is being deleted while a
	// KeystoneApplicationCredential references it; its deletion is held.
	// Delete the credential order first.
	ReasonReferencedByApplicationCredentials = "ReferencedByApplicationCredentials"
	// ReasonReferencedByUsers (ProjectReady=False): a KeystoneProject is
	// being deleted while a KeystoneUser in its namespace names it in
	// spec.defaultProjectRef (K-ORC keeps a user's default project); its
	// deletion is held. Delete the user orders first.
	ReasonReferencedByUsers = "ReferencedByUsers"
	// Also: ReasonProbingForCollision, ReasonSecretStoreNotReady,
	// ReasonProjectNotFound, ReasonWaitingForProject,
	// ReasonControlPlaneMismatch (spec.defaultProjectRef) and the shared
	// gates.
)

// KeystoneProject: ProjectReady (docs/reference/keystoneproject.md).
const (
	// ConditionProjectReady reports the Keystone project of a
	// KeystoneProject order.
	ConditionProjectReady = "ProjectReady"

	// ReasonProjectProvisioned (True): the project exists in Keystone and
	// status.projectName reports its name.
	ReasonProjectProvisioned = "ProjectProvisioned"
	// ReasonProjectCollision (False): a project of this name already exists
	// in the effective domain and the order does not own it. Orders never
	// adopt: choose another projectName.
	ReasonProjectCollision = "ProjectCollision"
	// ReasonWaitingForKeystoneProject (False): the K-ORC Project is
	// registered but not yet Available.
	ReasonWaitingForKeystoneProject = "WaitingForKeystoneProject"
	// ReasonProjectFailed (False): K-ORC reported a terminal error on the
	// project.
	ReasonProjectFailed = "ProjectFailed"
	// ReasonProjectError (False): a Kubernetes-level failure projecting the
	// project.
	ReasonProjectError = "ProjectError"
	// Also: ReasonProbingForCollision, ReasonReferencedByApplicationCredentials
	// and the shared gates.
)

// KeystoneRoleAssignment: AssignmentReady
// (docs/reference/keystoneroleassignment.md).
const (
	// ConditionAssignmentReady reports the Keystone role assignment of a
	// KeystoneRoleAssignment order.
	ConditionAssignmentReady = "AssignmentReady"

	// ReasonRoleAssigned (True): the role is assigned in Keystone and
	// status.roleID reports it.
	ReasonRoleAssigned = "RoleAssigned"
	// ReasonRoleNotAllowed (False): spec.role is not in the allowedRoles of
	// the namespaceAssignments entry for this namespace and cluster. Nothing
	// is assigned; an assignment made earlier is revoked only by deleting the
	// order.
	ReasonRoleNotAllowed = "RoleNotAllowed"
	// ReasonRoleNotFound (False): no Keystone role of that name exists; the
	// role import never resolves. Roles are global and never created.
	ReasonRoleNotFound = "RoleNotFound"
	// ReasonWaitingForAssignment (False): the role import or the assignment
	// is registered but not yet Available.
	ReasonWaitingForAssignment = "WaitingForAssignment"
	// ReasonAssignmentFailed (False): Keystone or K-ORC reported a terminal
	// error on the assignment.
	ReasonAssignmentFailed = "AssignmentFailed"
	// ReasonAssignmentError (False): a Kubernetes-level failure projecting the
	// assignment.
	ReasonAssignmentError = "AssignmentError"
	// Also: ReasonUserNotFound, ReasonProjectNotFound,
	// ReasonControlPlaneMismatch, ReasonWaitingForUser,
	// ReasonWaitingForProject, ReasonReferencedByApplicationCredentials and
	// the shared gates.
)

// ControlPlane: AdminCredentialReady, the condition every order and
// registration gates on (docs/reference/controlplane.md, "Status"; upstream
// github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/reconcile_admincredential.go). The
// hub mints no admin application credential, so upstream's reasons of that
// flow (K-ORC readiness, the push and the clouds.yaml sync) are not
// declared: no code here writes them.
const (
	// ConditionAdminCredentialReady reports whether K-ORC can authenticate
	// with the plane's admin credential.
	ConditionAdminCredentialReady = "AdminCredentialReady"

	// ReasonAdminCredentialReady (True): the admin clouds.yaml Secrets are
	// materialized and match the live credential.
	ReasonAdminCredentialReady = "AdminCredentialReady"
	// ReasonWaitingForCloudsYaml (False): the admin clouds.yaml Secret does
	// not exist yet.
	ReasonWaitingForCloudsYaml = "WaitingForCloudsYaml"
	// ReasonDuplicateControlPlane (Ready=False): another, older ControlPlane
	// exists in this namespace; this one is parked. Delete one of them.
	ReasonDuplicateControlPlane = "DuplicateControlPlane"
	// Also: ReasonCredentialDrift, ReasonSecretStoreNotReady.
)

// CredentialRotation: Ready (docs/reference/credentialrotation.md, "Status";
// upstream github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/reconcile_credentialrotation.go). The
// hub rotates KeystoneService accounts only (other targets are
// UnsupportedTarget), so upstream's plane-lookup and bootstrap reasons are
// not declared.
const (
	// ReasonUnsupportedTarget (False): spec.target is not handled.
	ReasonUnsupportedTarget = "UnsupportedTarget"
	// ReasonUnknownServiceAccount (False): the KeystoneService that
	// spec.keystoneService names declares no account block, so there is no
	// password to rotate.
	ReasonUnknownServiceAccount = "UnknownServiceAccount"
	// ReasonKeystoneServiceNotFound (False): spec.keystoneService names no
	// KeystoneService in this namespace.
	ReasonKeystoneServiceNotFound = "KeystoneServiceNotFound"
	// ReasonWaitingForServiceAccount (False): the account has no applied
	// password yet to rotate from.
	ReasonWaitingForServiceAccount = "WaitingForServiceAccount"
	// ReasonRotationTriggered (True): the rotation was nudged for this
	// generation.
	ReasonRotationTriggered = "RotationTriggered"
)
