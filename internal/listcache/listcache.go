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
	// ReadAt is when the last list was read (zero: never); Size the items
	// the last list that answered held in all.
	ReadAt time.Time
	Size   int
	// Demand is the lookups in the window that started at Window, Previous
	// those of the window before it (0 when that was not the last one).
	Window           time.Time
	Demand, Previous int
	// HoldUntil: no list is read before it (a failed read holds the key
	// off for FailHold).
	HoldUntil time.Time
}

// FailHold is how long a failed list read keeps a key's lookups the
// callers' own, in MaxAges: a list that times out is not asked again at
// once.
const FailHold = 10

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
// MaxAge old; else Own before HoldUntil; else Read when the demand of the current and the previous
// window reaches MinDemand and the last list (if any) held at most
// PerLookup items per lookup of that demand; else Own. The current window
// counts, so a burst of lookups after a quiet spell (orders made together
// resync together) reads a list at its MinDemand-th lookup. Pure.
func Plan(p Policy, s State, now time.Time) Action {
	demand := s.Demand + s.Previous
	switch {
	case !s.ReadAt.IsZero() && now.Sub(s.ReadAt) <= p.MaxAge:
		return Answer
	case demand < p.MinDemand, now.Before(s.HoldUntil):
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
// item id, and how many items the list held in all (its cost, for
// PerLookup). Its error makes the key's lookups the callers' own for
// FailHold MaxAges; the caller logs it.
type Fetch[V any] func(ctx context.Context) (items map[string]V, listed int, err error)

// Lookup answers item of key from a list (reading it with fetch when Plan
// says Read; concurrent reads of one key are joined). ok is false when the
// caller must read the item itself (Plan says Own, the list failed, ctx
// ended while the list was read, or the list does not hold the item). The
// read runs with ctx's values, without its cancellation, bounded by MaxAge;
// a caller whose ctx ends first stops waiting for it.
func (c *Cache[V]) Lookup(ctx context.Context, key, item string, fetch Fetch[V]) (V, bool) {
	p := c.policy()
	now := c.now()
	c.mu.Lock()
	e := c.entry(key)
	e.state = Count(p, e.state, now)
	act := Plan(p, e.state, now)
	if act == Own {
		e.items = nil // a stale list is kept no longer than it answers
	}
	items := e.items
	c.mu.Unlock()
	var zero V
	switch act {
	case Own:
		return zero, false
	case Read:
		ch := c.flight.DoChan(key, func() (any, error) { return c.read(ctx, p, key, now, fetch), nil })
		select {
		case r := <-ch:
			items, _ = r.Val.(map[string]V)
		case <-ctx.Done():
			return zero, false
		}
	}
	got, ok := items[item]
	return got, ok
}

// read runs fetch for key unless a flight that ended since the caller's
// Plan left a list at most MaxAge old, and records the result as read at
// now (the caller's instant, so a list's age is never understated). A
// failed read keeps the last list's Size and holds the key off (FailHold).
func (c *Cache[V]) read(ctx context.Context, p Policy, key string, now time.Time, fetch Fetch[V]) map[string]V {
	c.mu.Lock()
	e := c.entry(key)
	if r := e.state.ReadAt; !r.IsZero() && now.Sub(r) <= p.MaxAge {
		items := e.items
		c.mu.Unlock()
		return items
	}
	c.mu.Unlock()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.MaxAge)
	defer cancel()
	got, listed, err := fetch(rctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	e = c.entry(key)
	e.state.ReadAt = now
	if err != nil {
		e.items, e.state.HoldUntil = nil, now.Add(FailHold*p.MaxAge)
		return nil
	}
	e.items, e.state.Size = got, listed
	return got
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
