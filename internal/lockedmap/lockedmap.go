// Package lockedmap is a map safe for concurrent use, for the controllers'
// in-process memories (docs/architecture.md). We write it ourselves:
// sync.Map is untyped and has no drop-when-stale read.
package lockedmap

import "sync"

// Map is a map safe for concurrent use; its zero value is empty and ready.
type Map[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

// Get is the entry at k; one that stale reports (nil: none) is dropped and
// not returned.
func (l *Map[K, V]) Get(k K, stale func(V) bool) (V, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.m[k]
	if ok && stale != nil && stale(v) {
		delete(l.m, k)
		var zero V
		return zero, false
	}
	return v, ok
}

// Put sets the entry at k to v.
func (l *Map[K, V]) Put(k K, v V) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[K]V{}
	}
	l.m[k] = v
}

// Delete drops the entry at k.
func (l *Map[K, V]) Delete(k K) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, k)
}
