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
)
