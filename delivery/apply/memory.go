package apply

import (
	"fmt"
	"maps"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultMemoryLimit bounds Children: at about 300 bytes a record, some
// 10 MB; a hub with more children than that re-applies some each pass.
const DefaultMemoryLimit = 32768

// Outcome is what became of one child apply (orderhub_child_applies_total,
// docs/reference/metrics.md).
type Outcome string

const (
	// OutcomeApplied: the apply request was sent and succeeded.
	OutcomeApplied Outcome = "applied"
	// OutcomeSkipped: nothing was sent; the read object already showed the
	// result (AlreadyApplied).
	OutcomeSkipped Outcome = "skipped"
)

// CountKey labels a count of Memory.Counts.
type CountKey struct {
	Kind    string
	Outcome Outcome
}

type childKey struct{ group, version, kind, namespace, name string }

// Memory remembers, per child (group, version, kind, namespace, name), the
// Record of this process's last successful apply, so an apply whose result
// the read object already shows is skipped (AlreadyApplied). We keep it
// ourselves: controller-runtime's client sends every Apply, and the
// apiserver serves a no-op apply as a write request all the same. A new
// Memory is empty (one apply per child, as after a restart); it holds at
// most limit records, and the record that would exceed it clears the
// memory first, so orders created and deleted cannot grow it (a forgotten
// record costs one apply of its child). Safe for concurrent use.
type Memory struct {
	mu      sync.Mutex
	limit   int
	records map[childKey]Record
	counts  map[CountKey]uint64
}

// NewMemory returns an empty Memory of at most limit records (at least 1).
func NewMemory(limit int) *Memory {
	return &Memory{limit: max(limit, 1), records: map[childKey]Record{}, counts: map[CountKey]uint64{}}
}

// Children is the process's Memory of the hub's child applies (korc.Apply,
// eso.Apply).
var Children = NewMemory(DefaultMemoryLimit)

// Pending is an apply Check did not skip; Done records it once it succeeded.
type Pending struct {
	m      *Memory
	key    childKey
	digest Digest
}

// Check decides whether applying sent under fieldOwner may be skipped,
// given cur, ReadOwned's read of the object (nil: absent or not read). On a
// skip it makes into (the caller's object, of cur's type) a copy of cur
// (Fill), counts OutcomeSkipped and returns true; otherwise the caller
// applies and then calls Pending.Done with the server's answer. Errors:
// sent does not encode (DigestOf), the Fill failing; they name the object.
func (m *Memory) Check(fieldOwner string, sent *unstructured.Unstructured, cur, into client.Object) (Pending, bool, error) {
	gvk := sent.GroupVersionKind()
	d, err := DigestOf(fieldOwner, sent)
	if err != nil {
		return Pending{}, false, fmt.Errorf("apply %s %s/%s: %w", gvk.Kind, sent.GetNamespace(), sent.GetName(), err)
	}
	p := Pending{m: m, key: childKey{gvk.Group, gvk.Version, gvk.Kind, sent.GetNamespace(), sent.GetName()}, digest: d}
	m.mu.Lock()
	defer m.mu.Unlock()
	var last *Record
	if r, ok := m.records[p.key]; ok {
		last = &r
	}
	if cur == nil || !AlreadyApplied(last, d, sent, cur) {
		return p, false, nil
	}
	if err := Fill(into, cur); err != nil {
		return Pending{}, false, fmt.Errorf("apply %s %s/%s: %w", gvk.Kind, sent.GetNamespace(), sent.GetName(), err)
	}
	m.counts[CountKey{gvk.Kind, OutcomeSkipped}]++
	return p, true, nil
}

// Done records the apply p stands for as answered by the server (answer's
// UID and metadata.resourceVersion) and counts OutcomeApplied.
func (p Pending) Done(answer client.Object) {
	p.m.mu.Lock()
	defer p.m.mu.Unlock()
	if _, ok := p.m.records[p.key]; !ok && len(p.m.records) >= p.m.limit {
		clear(p.m.records)
	}
	p.m.records[p.key] = Record{UID: answer.GetUID(), ResourceVersion: answer.GetResourceVersion(), Digest: p.digest}
	p.m.counts[CountKey{p.key.kind, OutcomeApplied}]++
}

// Len is the number of records held.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.records)
}

// Counts is a copy of the outcomes counted since the Memory was made, by
// kind; clearing the records does not reset them.
func (m *Memory) Counts() map[CountKey]uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.counts)
}

// Fill makes dst a copy of src, the object read in place of an apply's
// answer on a skip; dst keeps its own apiVersion and kind when set (a
// typed object read from the cache carries none). Errors: dst and src
// are not pointers of the same type.
func Fill(dst, src client.Object) error {
	dv, sv := reflect.ValueOf(dst), reflect.ValueOf(src)
	if dv.Kind() != reflect.Pointer || dv.Type() != sv.Type() {
		return fmt.Errorf("apply: fill %T from %T: not the same type", dst, src)
	}
	gvk := dst.GetObjectKind().GroupVersionKind()
	dv.Elem().Set(sv.Elem())
	if !gvk.Empty() {
		dst.GetObjectKind().SetGroupVersionKind(gvk)
	}
	return nil
}
