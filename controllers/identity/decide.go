package identity

import (
	"hash/fnv"
	"time"

	"k8s.io/apimachinery/pkg/types"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
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
// at, is due: the first instant at least resync/2 after at whose offset in
// the period (Unix time modulo resync) is the resource's phase, an FNV-1a
// hash of its UID modulo resync. So the resyncs of resources applied
// together (a batch, or all of them after a restart) spread evenly over the
// period instead of coming all at once, and each resource keeps exactly one
// resync per period in steady state; the first resync after an apply comes
// between resync/2 and 3·resync/2 after it (docs/identity.md, "Reconcile
// loop").
// A resync of 0 or less is due at once.
func resyncDue(at time.Time, resync time.Duration, uid types.UID) time.Time {
	if resync <= 0 {
		return at
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(uid))
	phase := int64(h.Sum64() % uint64(resync))
	earliest := at.Add(resync / 2)
	offset := earliest.UnixNano() % int64(resync)
	if offset < 0 {
		offset += int64(resync)
	}
	d := phase - offset
	if d < 0 {
		d += int64(resync)
	}
	return earliest.Add(time.Duration(d))
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
