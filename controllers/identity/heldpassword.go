package identity

import (
	"crypto/sha256"
	"time"

	"github.com/c5c3/orderhub/internal/lockedmap"
	"k8s.io/apimachinery/pkg/types"
)

// heldPassword is a Secret value (as its SHA-256) that Keystone held for the
// user userID of the resource with uid at the time at: a probe accepted it,
// or the controller wrote it (created the user with it, or set it after a 401).
type heldPassword struct {
	uid    types.UID
	userID string
	sum    [sha256.Size]byte
	at     time.Time
}

// probeDue is the pure decision whether apply probes the password whose hash
// is sum, of the Keystone user userID, for the resource with uid: when
// Keystone is not known to hold that value (nothing remembered, another
// value, a re-created resource or Keystone user), or on the
// forced resync (resync) once at least interval has passed since Keystone was
// last seen holding it. Any other apply (a spec edit, a retry) does not probe
// an unchanged value.
func probeDue(last heldPassword, ok bool, uid types.UID, userID string, sum [sha256.Size]byte, resync bool, now time.Time, interval time.Duration) bool {
	if !ok || last.uid != uid || last.userID != userID || last.sum != sum {
		return true
	}
	return resync && now.Sub(last.at) >= interval
}

// heldPasswords remembers, per User resource, the last value Keystone held.
// It is kept in memory: after a restart every enabled user is probed once.
// A nil heldPasswords remembers nothing.
type heldPasswords struct {
	entries lockedmap.Map[types.NamespacedName, heldPassword]
}

func newHeldPasswords() *heldPasswords { return &heldPasswords{} }

// due reports probeDue for the resource's remembered value; with nothing
// remembered (a nil heldPasswords) every apply probes.
func (h *heldPasswords) due(key types.NamespacedName, uid types.UID, userID, password string, resync bool, now time.Time, interval time.Duration) bool {
	if h == nil {
		return true
	}
	last, ok := h.entries.Get(key, nil)
	return probeDue(last, ok, uid, userID, sha256.Sum256([]byte(password)), resync, now, interval)
}

// note records that Keystone held password for the user userID of the
// resource at now.
func (h *heldPasswords) note(key types.NamespacedName, uid types.UID, userID, password string, now time.Time) {
	if h != nil {
		h.entries.Put(key, heldPassword{uid: uid, userID: userID, sum: sha256.Sum256([]byte(password)), at: now})
	}
}

// forget ends the resource's entry: it was deleted, or its user disabled
// (a re-enabled user is probed again).
func (h *heldPasswords) forget(key types.NamespacedName) {
	if h != nil {
		h.entries.Delete(key)
	}
}
