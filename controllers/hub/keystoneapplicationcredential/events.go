package keystoneapplicationcredential

// Event reasons besides condition changes.
const (
	EventRotationStarted  = "CredentialRotationStarted"
	EventRotationSwitched = "CredentialRotationSwitched"
	// EventPreviousDeleted (Normal): the superseded generation's grace ended and
	// it is gone.
	EventPreviousDeleted = "PreviousCredentialDeleted"
	EventFailedDeleted   = "FailedCredentialDeleted"
	// EventFailedReplaced (Warning): applicationcredential.ActionReplaceFailed.
	EventFailedReplaced        = "FailedCredentialReplaced"
	EventDelivered             = "CredentialDelivered"
	EventTransportErrorCleared = "TransportErrorCleared"
)
