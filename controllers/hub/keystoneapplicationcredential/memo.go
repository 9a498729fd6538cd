package keystoneapplicationcredential

import "sync"

// memo is an in-memory record per order, keyed by the order's child prefix
// (pass.prefix), safe for concurrent reconciles; the zero value is empty. It
// is lost with the process, so what it holds must be safe to learn again.
type memo[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

// get returns the record of key and whether there is one.
func (s *memo[V]) get(key string) (V, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	return v, ok
}

// set records v for key.
func (s *memo[V]) set(key string, v V) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]V{}
	}
	s.m[key] = v
}

// forget drops the record of key.
func (s *memo[V]) forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
}
