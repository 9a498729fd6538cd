package lockedmap

import "testing"

func TestMap(t *testing.T) {
	t.Parallel()
	var m Map[string, int]
	if _, ok := m.Get("a", nil); ok {
		t.Fatal("zero Map: Get found an entry")
	}
	m.Put("a", 1)
	m.Put("b", 2)
	if v, ok := m.Get("a", nil); !ok || v != 1 {
		t.Fatalf("Get(a) = %d, %v; want 1, true", v, ok)
	}
	if _, ok := m.Get("b", func(v int) bool { return v == 2 }); ok {
		t.Fatal("Get(b) returned a stale entry")
	}
	if _, ok := m.Get("b", nil); ok {
		t.Fatal("a stale entry was not dropped")
	}
	m.Delete("a")
	if _, ok := m.Get("a", nil); ok {
		t.Fatal("Delete(a) left the entry")
	}
}
