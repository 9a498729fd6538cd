package identity

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// isRepair reports whether the changes an apply made repaired drift: the
// desired state (spec and inputs) is the one last applied successfully, so
// whatever had to be written had changed in Keystone, not in the spec.
func isRepair(resync bool, changes int) bool { return resync && changes > 0 }

// desiredHash is the SHA-256 (hex) of the spec's JSON and the extra inputs the
// desired state depends on, such as a User's password. Keys of extra are
// sorted by encoding/json, so the hash is stable.
func desiredHash(spec any, extra map[string]string) (string, error) {
	b, err := json.Marshal(struct {
		Spec  any               `json:"spec"`
		Extra map[string]string `json:"extra,omitempty"`
	}{spec, extra})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// applied is what the loop remembers about the last successful apply of one
// resource: the desired-state hash and when it was applied. It is kept in
// memory only, so a restarted controller applies (and probes) everything once.
type applied struct {
	uid  types.UID // the resource the entry belongs to (a re-created one starts afresh)
	hash string
	at   time.Time
}

// skipDecision says whether Keystone can be left alone, and if so after how
// long the forced resync is due.
type skipDecision struct {
	skip  bool
	after time.Duration
}

// decideSkip: an apply is skipped when the last successful apply had the same
// desired-state hash, its forced resync (resyncDue) is not due yet, and the status already reports
// Ready=True for the current generation. Anything else (changed spec or
// Secret, a previous failure, a due resync) applies again.
func decideSkip(last applied, ok bool, hash string, now time.Time, resync time.Duration, st *kv1.CommonStatus, generation int64) skipDecision {
	if !ok || last.hash != hash || st.ObservedGeneration != generation {
		return skipDecision{}
	}
	c := meta.FindStatusCondition(st.Conditions, kv1.ConditionReady)
	if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != generation {
		return skipDecision{}
	}
	due := resyncDue(last.at, resync, last.uid)
	if !now.Before(due) {
		return skipDecision{}
	}
	return skipDecision{skip: true, after: due.Sub(now)}
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

// readyCondition is the Ready condition for the outcome of an apply.
func readyCondition(generation int64, msg string, err error) metav1.Condition {
	c := metav1.Condition{Type: kv1.ConditionReady, ObservedGeneration: generation}
	if err != nil {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, kv1.ReasonReconcileError, truncate(err.Error())
	} else {
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, kv1.ReasonReconciled, truncate(msg)
	}
	return c
}

// setStatus stamps the outcome into st. It keeps lastTransitionTime unless the
// condition's status flips (meta.SetStatusCondition) and reports whether
// anything changed.
func setStatus(st *kv1.CommonStatus, generation int64, c metav1.Condition) bool {
	changed := st.ObservedGeneration != generation
	st.ObservedGeneration = generation
	if meta.SetStatusCondition(&st.Conditions, c) {
		changed = true
	}
	return changed
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

const maxMessage = 1024

func truncate(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	return s[:maxMessage-3] + "..."
}

// appliedCache remembers the last successful apply per resource, keyed by
// namespace/name and checked against the UID.
type appliedCache struct {
	mu sync.Mutex
	m  map[types.NamespacedName]applied
}

func newAppliedCache() *appliedCache { return &appliedCache{m: map[types.NamespacedName]applied{}} }

func (c *appliedCache) get(key types.NamespacedName, uid types.UID) (applied, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.m[key]
	if !ok || a.uid != uid {
		return applied{}, false
	}
	return a, true
}

func (c *appliedCache) set(key types.NamespacedName, a applied) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = a
}

func (c *appliedCache) forget(key types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, key)
}
