// Package spread places a periodic action of many objects evenly over its
// period by a hash of each object's UID, so actions of objects created
// together (a batch, or all of them after a restart) do not come at once.
// Pure. Used by the identity controller's forced resync (docs/identity.md,
// "Reconcile loop") and the hub's hashing logins at rest
// (docs/reference/keystoneuser.md, "What is detected how fast").
package spread

import (
	"hash/fnv"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Due is when the periodic action of the object uid, last done at at, is
// due: the first instant at least period/2 after at whose offset in the
// period (Unix time modulo period) is the object's phase, an FNV-1a hash of
// its UID modulo period. Each object keeps exactly one action per period in
// steady state; the first after at comes between period/2 and 3·period/2
// after it. A period of 0 or less is due at once (at).
func Due(at time.Time, period time.Duration, uid types.UID) time.Time {
	if period <= 0 {
		return at
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(uid))
	phase := int64(h.Sum64() % uint64(period))
	earliest := at.Add(period / 2)
	offset := earliest.UnixNano() % int64(period)
	if offset < 0 {
		offset += int64(period)
	}
	d := phase - offset
	if d < 0 {
		d += int64(period)
	}
	return earliest.Add(time.Duration(d))
}
