package identity

import "sync"

// lockedMap is a map safe for concurrent use; its zero value is empty and
// ready. The per-resource and per-name memories (heldPasswords, probeBudget,
// idCache) keep their entries in one.
type lockedMap[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

// get is the entry at k; one that stale reports (nil: none) is dropped and
// not returned.
func (l *lockedMap[K, V]) get(k K, stale func(V) bool) (V, bool) {
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

func (l *lockedMap[K, V]) put(k K, v V) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[K]V{}
	}
	l.m[k] = v
}

func (l *lockedMap[K, V]) del(k K) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, k)
}
