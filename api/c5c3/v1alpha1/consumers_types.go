package v1alpha1

// AnnotationRolloutOnCredentialChange opts a Deployment, StatefulSet or
// DaemonSet, or every one in a namespace, into being rolled when a credential
// Secret it consumes switches; "true" opts in, and on the workload "false"
// opts out of its namespace's "true" (docs/reference/consumers.md).
const AnnotationRolloutOnCredentialChange = "c5c3.io/rollout-on-credential-change"

// AnnotationCredentialPrefix is the prefix of the pod-template annotation the
// hub stamps per consumed Secret; the value names the order and the
// credential generation, "<kind>/<name>=<generation>" (docs/reference/consumers.md).
const AnnotationCredentialPrefix = "credentials.c5c3.io/"

// AnnotationAcknowledged, on a delivered credential Secret, is written by a
// consumer that is not a workload: the stamp "<kind>/<name>=<generation>" of
// the generation it now uses. While present, the superseded credential waits
// for it to name the current generation (docs/reference/consumers.md,
// "Revocation waits for the consumers").
const AnnotationAcknowledged = "credentials.c5c3.io/acknowledged"

// Where a consumer workload is (ConsumerStatus.State).
const (
	// ConsumerRolledOut: the pod template carries the current generation and
	// the rollout is complete.
	ConsumerRolledOut = "RolledOut"
	// ConsumerRollingOut: the pod template carries a generation and the
	// rollout is not complete yet.
	ConsumerRollingOut = "RollingOut"
	// ConsumerQueued: opted in and not stamped yet; it waits for the workload
	// rolling out before it.
	ConsumerQueued = "Queued"
	// ConsumerNotOptedIn: it consumes the Secret and is never rolled by the hub.
	ConsumerNotOptedIn = "NotOptedIn"
)

// MaxConsumers bounds status.consumers; further consumers are rolled but not listed.
const MaxConsumers = 32

// ConsumerStatus is one workload that consumes the delivered Secret.
type ConsumerStatus struct {
	// Deployment, StatefulSet or DaemonSet.
	// +kubebuilder:validation:Enum=Deployment;StatefulSet;DaemonSet
	Kind string `json:"kind"`
	// The workload's name, in the Secret's namespace.
	Name string `json:"name"`
	// The generation its pod template carries, "<kind>/<name>=<generation>";
	// empty when not stamped.
	// +optional
	Stamp string `json:"stamp,omitempty"`
	// RolledOut, RollingOut, Queued or NotOptedIn.
	// +kubebuilder:validation:Enum=RolledOut;RollingOut;Queued;NotOptedIn
	State string `json:"state"`
}
