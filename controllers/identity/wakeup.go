package identity

import (
	"errors"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

// wakeups shortens the dependency chain Domain → Project → User →
// RoleAssignment (and Service → Endpoint). A resource whose dependency is
// missing in Keystone is remembered as waiting; whenever a resource writes
// to Keystone, the waiting resources are enqueued at once instead of after
// its retry timer. Only resources waiting on the kind that was written are
// woken (a created User wakes RoleAssignments waiting on a user, not those
// waiting on a project). Keystone stays the source of truth: a woken resource
// looks its dependency up again, and its retry timer still runs.
type wakeups struct {
	mu   sync.Mutex
	subs []func(dependency string)
}

func (w *wakeups) register(f func(dependency string)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.subs = append(w.subs, f)
}

// fire wakes every resource, of every kind, that waits on a missing object
// of kind dependency ("domain", "project", "identityprovider", ...; the
// dependencyKey of the Kind written and of the missingError's what).
func (w *wakeups) fire(dependency string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	subs := append([]func(string){}, w.subs...)
	w.mu.Unlock()
	for _, f := range subs {
		f(dependency)
	}
}

// dependencyKey is the key a kind and a missingError's what meet under:
// lower case without spaces ("IdentityProvider" and "identity provider" are
// "identityprovider").
func dependencyKey(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "")) }

// waitSet is one kind's set of resources waiting on a missing dependency,
// and the channel that re-enqueues them.
type waitSet struct {
	mu      sync.Mutex
	waiting map[types.NamespacedName]string // → the kind of the missing dependency
	events  chan event.GenericEvent
	newObj  func() event.GenericEvent
}

// note records whether key waits on a missing dependency after an apply
// that returned err.
func (s *waitSet) note(key types.NamespacedName, err error) {
	var me *missingError
	s.mu.Lock()
	defer s.mu.Unlock()
	if errors.As(err, &me) {
		s.waiting[key] = dependencyKey(me.what)
	} else {
		delete(s.waiting, key)
	}
}

// wake enqueues once, and forgets, every resource waiting on a missing
// object of kind dependency (one that still misses it registers again).
func (s *waitSet) wake(dependency string) {
	s.mu.Lock()
	var keys []types.NamespacedName
	for k, what := range s.waiting {
		if what == dependency {
			keys = append(keys, k)
			delete(s.waiting, k)
		}
	}
	s.mu.Unlock()
	if len(keys) == 0 {
		return
	}
	go func() {
		for _, k := range keys {
			ev := s.newObj()
			ev.Object.SetNamespace(k.Namespace)
			ev.Object.SetName(k.Name)
			s.events <- ev
		}
	}()
}
