package controlplane

import (
	"time"
)

// OpenBao is where the per-namespace SecretStores point and how they log in
// (docs/reference/openbao.md); the hub holds no OpenBao credential.
type OpenBao struct {
	// Address is the OpenBao URL (http or https).
	Address string
	// Mount is the KV v2 mount (default kv-v2).
	Mount string
	// AuthMount is the Kubernetes auth method's mount (default kubernetes).
	AuthMount string
	// Role is the OpenBao role the stores log in as (default eso-tenant).
	Role string
	// ServiceAccount is the one the role binds in every consented namespace
	// (default eso-tenant-auth).
	ServiceAccount string
}

// Options configure the reconciler.
type Options struct {
	// OpenBao, when set, provisions a SecretStore per consented namespace.
	OpenBao *OpenBao
	// Verifier requests the admin token; default KeystoneVerifier{}.
	Verifier Verifier
	// RetryInterval is the requeue after a failed pass (default 20 s).
	RetryInterval time.Duration
	// RecheckInterval re-verifies a ready credential (default 5 min).
	RecheckInterval time.Duration
	// FailureConfirmation is how long a Ready plane's transient failure must
	// persist to be reported (HoldTransient; default DefaultFailureConfirmation).
	FailureConfirmation time.Duration
}
