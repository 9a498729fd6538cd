package v1alpha1

// Event reasons the hub emits besides condition transitions (which are
// emitted under the condition's reason).
const (
	// EventScheduledRotationDeferred (Normal): a registration was created
	// with account.rotation.mode Scheduled, which the schema accepts but
	// whose scheduling is deferred (docs/reference/keystoneservice.md,
	// "ServiceAccountRotationSpec"), or a CredentialRotation set a deferred
	// scheduling field.
	EventScheduledRotationDeferred = "ScheduledRotationDeferred"

	// EventTenantNamespaceConsented (Warning): a ControlPlane lists a
	// namespace both in spec.namespaceAssignments (a tenant namespace) and
	// in spec.korc.serviceRegistrations.allowedNamespaces: whoever may
	// create a KeystoneService there is, in effect, cloud admin
	// (docs/reference/controlplane.md, "Who may create which kind").
	// Emitted once per observed generation, one event per namespace.
	EventTenantNamespaceConsented = "TenantNamespaceConsented"
)
