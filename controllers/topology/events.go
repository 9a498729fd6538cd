package topology

import "github.com/c5c3/orderhub/internal/osh/reconcile"

// Event reasons and actions of the topology controller besides the Ready
// reasons (api/rabbitmq/v1alpha1, ReasonSuccessfulCreateOrUpdate and
// ReasonFailedCreateOrUpdate, which double as event reasons).
const (
	// EventReasonDriftRepaired (Normal): a resync found the broker object
	// missing or changed and declared it again; the note names what.
	EventReasonDriftRepaired = reconcile.EventReasonDriftRepaired
	// EventReasonSuccessfulDelete (Normal): the broker object was deleted.
	EventReasonSuccessfulDelete = "SuccessfulDelete"
	// EventReasonFailedDelete (Warning): the deletion was refused or could
	// not be sent; retried with backoff.
	EventReasonFailedDelete = "FailedDelete"
	// EventReasonStillDeclared (Normal): the resource was deleted with
	// deletionPolicy delete, but another resource declares the same broker
	// object, which is kept (docs/topology.md, "Several declarations of one
	// broker object").
	EventReasonStillDeclared = "StillDeclared"

	EventActionDeclare = "Declare"
	EventActionDelete  = "Delete"
)
