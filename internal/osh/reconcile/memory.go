package reconcile

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Record is what the loop remembers about one resource between passes. It
// lives in memory only, so a restarted controller applies everything once.
type Record struct {
	UID types.UID
	// Key is the desired state last tried: its hash, or the text of a
	// failure that came before a hash ("resolve: ...", or "delete").
	Key string
	// OK is true when the attempt at Key succeeded; At is the time of the
	// last success and Applied its key (kept across failures).
	OK      bool
	At      time.Time
	Applied string
	// Failures counts consecutive failures of Key; Next is the earliest retry,
	// Wait after the last failure.
	Failures int
	Next     time.Time
	Wait     time.Duration
	// Message and Reason are the Ready message and reason ("" for the
	// policy's failure reason).
	Message, Reason string
	// Drift is what a resync found different, kept while the repairing
	// write fails, so its success is reported as a repair.
	Drift string
}

// Succeeded is the record of a success of key at now.
func Succeeded(last Record, key, message string, now time.Time) Record {
	return Record{UID: last.UID, Key: key, OK: true, At: now, Applied: key, Message: message}
}

// Failed is the record of one more consecutive failure of key at now;
// retry is the wait after the n-th failure.
func Failed(last Record, key, message string, now time.Time, retry func(n int) time.Duration) Record {
	n := 1
	if !last.OK && last.Key == key {
		n = last.Failures + 1
	}
	wait := retry(n)
	return Record{UID: last.UID, Key: key, At: last.At, Applied: last.Applied, Failures: n,
		Next: now.Add(wait), Wait: wait, Message: message}
}

// Memory is the applied-hash memory of one kind, keyed by namespace/name and
// checked against the UID (a re-created resource starts afresh).
type Memory struct {
	mu sync.Mutex
	m  map[types.NamespacedName]Record
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{m: map[types.NamespacedName]Record{}} }

// Get returns the record of key for uid; a missing or other-UID record is
// the zero Record with UID uid.
func (c *Memory) Get(key types.NamespacedName, uid types.UID) Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[key]
	if !ok || r.UID != uid {
		return Record{UID: uid}
	}
	return r
}

// Set stores r under key.
func (c *Memory) Set(key types.NamespacedName, r Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = r
}

// Forget drops key.
func (c *Memory) Forget(key types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, key)
}
