package identity

import (
	"crypto/sha256"

	"github.com/c5c3/orderhub/internal/lockedmap"
	"k8s.io/apimachinery/pkg/types"
)

// probeBudget limits password probes to one per (User resource, Secret value)
// (docs/identity.md, "Users and passwords"). Every probe Keystone answers with
// 401 is a failed login counted against [security_compliance]
// lockout_failure_attempts. When the write that follows such a probe fails (a
// 400 from Keystone's password rules, a 5xx), the retries must not probe
// again: the budget remembers that Keystone rejected this value, and the
// retries write without probing. The entry ends when the write succeeds, when
// the Secret's value changes (a new value is probed once), when the resource
// is deleted, or when the controller restarts (the budget is kept in memory).
//
// Only a 401 is remembered. A probe that failed without an answer (network
// error) or with another status learnt nothing, so nothing is written and the
// next attempt probes again. A nil probeBudget remembers nothing.
type probeBudget struct {
	entries lockedmap.Map[types.NamespacedName, rejectedProbe]
}

// rejectedProbe is a Secret value (as its SHA-256) whose probe Keystone
// answered with 401, for the resource with uid.
type rejectedProbe struct {
	uid types.UID
	sum [sha256.Size]byte
}

func newProbeBudget() *probeBudget { return &probeBudget{} }

// knownRejected is the pure decision: a probe of the value whose hash is sum,
// for the resource with uid, is skipped (and the password written at once)
// when Keystone already rejected a probe of the same value for the same
// resource.
func knownRejected(last rejectedProbe, ok bool, uid types.UID, sum [sha256.Size]byte) bool {
	return ok && last.uid == uid && last.sum == sum
}

// rejected reports whether Keystone already rejected password for the
// resource.
func (b *probeBudget) rejected(key types.NamespacedName, uid types.UID, password string) bool {
	if b == nil {
		return false
	}
	last, ok := b.entries.Get(key, nil)
	return knownRejected(last, ok, uid, sha256.Sum256([]byte(password)))
}

// noteRejected records that Keystone answered 401 to a probe of password for
// the resource.
func (b *probeBudget) noteRejected(key types.NamespacedName, uid types.UID, password string) {
	if b != nil {
		b.entries.Put(key, rejectedProbe{uid: uid, sum: sha256.Sum256([]byte(password))})
	}
}

// forget ends the resource's entry: the password was written or accepted, or
// the resource is gone.
func (b *probeBudget) forget(key types.NamespacedName) {
	if b != nil {
		b.entries.Delete(key)
	}
}
