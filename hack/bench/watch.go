package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// progressEvery is how often waitReady logs how many objects of each kind
// are ready, so a run that times out still shows how far it got.
const progressEvery = time.Minute

// readyState is what waitReady knows of the objects it waits for: the
// readiness of every object of the set seen so far, by "Kind/name".
type readyState struct {
	mu     sync.Mutex
	want   map[string]bool
	ready  map[string]bool
	wakeup chan struct{}
	// after is, per object, the time from its creationTimestamp to the
	// event that first showed it ready (whole seconds: the timestamp's).
	after map[string]time.Duration
}

func newReadyState(objs []*unstructured.Unstructured) *readyState {
	s := &readyState{want: map[string]bool{}, ready: map[string]bool{}, wakeup: make(chan struct{}, 1), after: map[string]time.Duration{}}
	for _, o := range objs {
		s.want[o.GetKind()+"/"+o.GetName()] = true
	}
	return s
}

// set records u's readiness (gone: it was deleted) and wakes the waiter.
func (s *readyState) set(u *unstructured.Unstructured, ready func(*unstructured.Unstructured) bool, gone bool) {
	key := u.GetKind() + "/" + u.GetName()
	if !s.want[key] {
		return
	}
	s.mu.Lock()
	if gone {
		delete(s.ready, key)
	} else {
		s.ready[key] = ready(u)
		if _, seen := s.after[key]; s.ready[key] && !seen {
			s.after[key] = time.Since(u.GetCreationTimestamp().Time)
		}
	}
	s.mu.Unlock()
	select {
	case s.wakeup <- struct{}{}:
	default:
	}
}

// count is how many objects of the set are ready.
func (s *readyState) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	good := 0
	for key := range s.want {
		if s.ready[key] {
			good++
		}
	}
	return good
}

// describe is "Kind ready/total" per kind, kinds sorted: for the progress
// log and the timeout error only, not for every wake-up.
func (s *readyState) describe() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	byKind, total := map[string]int{}, map[string]int{}
	for key := range s.want {
		kind, _, _ := strings.Cut(key, "/")
		total[kind]++
		if s.ready[key] {
			byKind[kind]++
		}
	}
	kinds := make([]string, 0, len(total))
	for k := range total {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d/%d", k, byKind[k], total[k]))
	}
	return strings.Join(parts, ", ")
}

// latencies is "Kind p50 Ns, p90 Ns, max Ns" per kind, kinds sorted: how
// long each kind's objects took from creation to ready.
func (s *readyState) latencies() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	byKind := map[string][]time.Duration{}
	for key, d := range s.after {
		kind, _, _ := strings.Cut(key, "/")
		byKind[kind] = append(byKind[kind], d)
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		p50, p90, most := quantiles(byKind[k])
		parts = append(parts, fmt.Sprintf("%s p50 %.0fs, p90 %.0fs, max %.0fs", k, p50.Seconds(), p90.Seconds(), most.Seconds()))
	}
	return strings.Join(parts, "; ")
}

// quantiles is the median, the 90th percentile (nearest rank) and the
// largest of ds; zeros for none. ds is sorted in place.
func quantiles(ds []time.Duration) (p50, p90, most time.Duration) {
	if len(ds) == 0 {
		return 0, 0, 0
	}
	slices.Sort(ds)
	rank := func(q float64) time.Duration { return ds[int(math.Ceil(q*float64(len(ds))))-1] }
	return rank(0.5), rank(0.9), ds[len(ds)-1]
}

// waitReady waits until every object of objs exists in ns and is ready, at
// most b.timeout. It watches each kind through a client-go dynamic informer
// (one list, then the changes) instead of listing the whole set again and
// again: at a few thousand objects a poll's lists cost the apiserver and
// the bench more CPU than the controllers being timed, on a 2-core machine.
func (b *bench) waitReady(ctx context.Context, ns string, objs []*unstructured.Unstructured, ready func(*unstructured.Unstructured) bool) error {
	dc, err := dynamic.NewForConfig(b.stack.Kube.Config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, ns, nil)
	// Shutdown waits for the informers, which stop on ctx: cancel first.
	defer func() {
		cancel()
		factory.Shutdown()
	}()
	s := newReadyState(objs)
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { s.onEvent(o, ready, false) },
		UpdateFunc: func(_, o any) { s.onEvent(o, ready, false) },
		DeleteFunc: func(o any) { s.onEvent(o, ready, true) },
	}
	for _, gvk := range kinds(objs) {
		m, err := b.kube.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return fmt.Errorf("map %s: %w", gvk, err)
		}
		if _, err := factory.ForResource(m.Resource).Informer().AddEventHandler(handler); err != nil {
			return err
		}
	}
	factory.Start(ctx.Done())

	deadline := time.NewTimer(b.timeout)
	defer deadline.Stop()
	progress := time.NewTicker(progressEvery)
	defer progress.Stop()
	for {
		good := s.count()
		if good == len(objs) {
			if len(kinds(objs)) > 1 {
				b.logf("%s: creation→Ready by kind: %s", ns, s.latencies())
			}
			return nil
		}
		select {
		case <-s.wakeup:
		case <-progress.C:
			b.logf("%s: ready %s", ns, s.describe())
		case <-deadline.C:
			return fmt.Errorf("%d of %d objects ready in %s after %v (%s)", good, len(objs), ns, b.timeout, s.describe())
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// onEvent unwraps an informer event's object (a deletion seen only on a
// relist comes as a tombstone).
func (s *readyState) onEvent(o any, ready func(*unstructured.Unstructured) bool, gone bool) {
	if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = t.Obj
	}
	if u, ok := o.(*unstructured.Unstructured); ok {
		s.set(u, ready, gone)
	}
}
