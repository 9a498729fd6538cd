package identity

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/spread"
)

// Pure decisions of the shared loop. None of these functions does I/O.

// owned reports whether this controller serves a resource: keystoneRef unset,
// empty, or naming refName (docs/identity.md, "Common fields").
func owned(ref *kv1.KeystoneRef, refName string) bool {
	return ref == nil || ref.Name == "" || ref.Name == refName
}

// wantsFinalizer reports whether a resource should carry kv1.Finalizer: only
// when it is owned and its deletionPolicy is delete.
func wantsFinalizer(isOwned bool, policy kv1.DeletionPolicy) bool {
	return isOwned && policy == kv1.DeletionPolicyDelete
}

// deletesFromKeystone decides, for a resource being deleted, whether its
// Keystone object goes too: only when the live resource is still served by
// this controller and its deletionPolicy is delete now. A policy switched to
// retain while the resource was terminating keeps the object.
func deletesFromKeystone(isOwned bool, policy kv1.DeletionPolicy) bool {
	return isOwned && policy == kv1.DeletionPolicyDelete
}

// policyName is the deletionPolicy as the user reads it (empty is the retain default).
func policyName(p kv1.DeletionPolicy) string {
	if p == "" {
		return string(kv1.DeletionPolicyRetain)
	}
	return string(p)
}

// resyncDue is when the forced resync of the resource uid, last applied at
// at, is due: spread.Due over the resync period, so resyncs of resources
// applied together spread evenly over the period (docs/identity.md,
// "Reconcile loop"). A resync of 0 or less is due at once.
func resyncDue(at time.Time, resync time.Duration, uid types.UID) time.Time {
	return spread.Due(at, resync, uid)
}

// retryAfter is spec.retryInterval when set and valid, else backoff.
func retryAfter(spec *kv1.CommonSpec, backoff time.Duration) time.Duration {
	if spec.RetryInterval != "" {
		if d, err := time.ParseDuration(spec.RetryInterval); err == nil && d > 0 {
			return d
		}
	}
	return backoff
}
