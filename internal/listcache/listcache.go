// Package listcache answers many per-item reads of a remote service from one
// list read when that costs the service less: the hub's checks at rest of
// Keystone users and grants (docs/reference/keystoneuser.md, "What is
// detected how fast"; docs/reference/keystoneroleassignment.md, "How roles
// are granted").
// A list answers only "present and well" for at most Policy.MaxAge; anything
// else (absent, unhealthy, no list worth reading, the list read failed) is
// the caller's own per-item read, so bad news is always read fresh.
//
// We write it ourselves: client-go's caches need a watch, which Keystone
// does not offer, and golang.org/x/sync/singleflight (used here) only joins
// reads that are in flight at once.
package listcache

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Policy says when a list answers.
type Policy struct {
	// MaxAge is the oldest list that answers (> 0).
	MaxAge time.Duration
	// MinDemand is how many lookups of a key in the current and the previous
	// MaxAge window make a new list of it worth reading.
	MinDemand int
	// PerLookup is the most items the key's last list may have held per such
	// lookup: a list of a large domain or role answering a few checks costs
	// the service more than the per-item reads it saves.
	PerLookup int
}

// DefaultMaxAge is Default's MaxAge; a kind whose check may be answered by
// a list resyncs this much sooner to keep its detection bound.
const DefaultMaxAge = 30 * time.Second

// Default is the hub's policy: a list at most 30 s old, read when at least
// 3 checks came in the current and the previous 30 s window and the last
// list held at most 50 items per check (docs/reference/keystoneuser.md, "What is detected how fast").
var Default = Policy{MaxAge: DefaultMaxAge, MinDemand: 3, PerLookup: 50}

// State is what the cache knows of one key, for Plan.
type State struct {
	// ReadAt is when the last list was read (zero: never); Size its items.
	ReadAt time.Time
	Size   int
	// Demand is the lookups in the window that started at Window, Previous
	// those of the window before it (0 when that was not the last one).
	Window           time.Time
	Demand, Previous int
}

// Action is what a lookup does.
type Action int

const (
	// Own: the caller reads the item itself.
	Own Action = iota
	// Answer: the last list answers.
	Answer
	// Read: a new list is read, then answers.
	Read
)

// Plan is a lookup's action at now: Answer while the last list is at most
// MaxAge old; else Read when the demand of the current and the previous
// window reaches MinDemand and the last list (if any) held at most
// PerLookup items per lookup of that demand; else Own. The current window
// counts, so a burst of lookups after a quiet spell (orders made together
// resync together) reads a list at its MinDemand-th lookup. Pure.
func Plan(p Policy, s State, now time.Time) Action {
	demand := s.Demand + s.Previous
	switch {
	case !s.ReadAt.IsZero() && now.Sub(s.ReadAt) <= p.MaxAge:
		return Answer
	case demand < p.MinDemand:
		return Own
	case !s.ReadAt.IsZero() && s.Size > p.PerLookup*demand:
		return Own
	}
	return Read
}

// Count is s with one more lookup at now, windows rolled every MaxAge. Pure.
func Count(p Policy, s State, now time.Time) State {
	if now.Sub(s.Window) >= p.MaxAge {
		prev := s.Demand
		if now.Sub(s.Window) >= 2*p.MaxAge {
			prev = 0
		}
		s.Window, s.Previous, s.Demand = now, prev, 0
	}
	s.Demand++
	return s
}

// Cache is a set of lists of items of type V by key; the zero value uses
// Default and time.Now and is safe for concurrent use.
type Cache[V any] struct {
	Policy Policy
	Now    func() time.Time

	mu     sync.Mutex
	keys   map[string]*entry[V]
	flight singleflight.Group
}

type entry[V any] struct {
	state State
	items map[string]V
}

// Fetch reads the list of one key: the items that are present and well, by
// item id. Its error makes the key's lookups the callers' own until MaxAge
// has passed.
type Fetch[V any] func(ctx context.Context) (map[string]V, error)

// Lookup answers item of key from a list (reading it with fetch when Plan
// says Read; concurrent reads of one key are joined). ok is false when the
// caller must read the item itself (Plan says Own, the list failed, or the
// list does not hold the item). The read runs with ctx's values, without
// its cancellation, bounded by MaxAge.
func (c *Cache[V]) Lookup(ctx context.Context, key, item string, fetch Fetch[V]) (V, bool) {
	p := c.policy()
	now := c.now()
	c.mu.Lock()
	e := c.entry(key)
	e.state = Count(p, e.state, now)
	act := Plan(p, e.state, now)
	items := e.items
	c.mu.Unlock()
	var zero V
	switch act {
	case Own:
		return zero, false
	case Read:
		v, _, _ := c.flight.Do(key, func() (any, error) {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.MaxAge)
			defer cancel()
			got, err := fetch(rctx)
			if err != nil {
				got = nil
			}
			c.mu.Lock()
			e := c.entry(key)
			e.items, e.state.ReadAt, e.state.Size = got, now, len(got)
			c.mu.Unlock()
			return got, nil
		})
		items, _ = v.(map[string]V)
	}
	got, ok := items[item]
	return got, ok
}

// entry is key's entry, made when missing; c.mu MUST be held.
func (c *Cache[V]) entry(key string) *entry[V] {
	if c.keys == nil {
		c.keys = map[string]*entry[V]{}
	}
	e, ok := c.keys[key]
	if !ok {
		e = &entry[V]{}
		c.keys[key] = e
	}
	return e
}

func (c *Cache[V]) policy() Policy {
	if c.Policy.MaxAge <= 0 {
		return Default
	}
	return c.Policy
}

func (c *Cache[V]) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
