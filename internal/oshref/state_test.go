package oshref

import (
	"path/filepath"
	"reflect"
	"testing"
)

func state(kv ...string) State {
	s := State{Entries: map[string]string{}}
	for i := 0; i < len(kv); i += 2 {
		s.Entries[kv[i]] = kv[i+1]
	}
	return s
}

func TestCompare(t *testing.T) {
	oracle := state("a", `1`, "b", `"x"`, "c", `true`)
	known := Known{Diff: Diff{Key: "b", Want: `"x"`, Got: `"y"`}, Doc: "docs/topology.md"}
	for _, tc := range []struct {
		name       string
		got        State
		known      []Known
		unexplain  []Diff
		unusedKeys []string
	}{
		{name: "equal", got: state("a", `1`, "b", `"x"`, "c", `true`)},
		{name: "a value differs", got: state("a", `2`, "b", `"x"`, "c", `true`),
			unexplain: []Diff{{Key: "a", Want: `1`, Got: `2`}}},
		{name: "missing and extra keys", got: state("a", `1`, "b", `"x"`, "d", `0`),
			unexplain: []Diff{{Key: "c", Want: `true`, Got: Absent}, {Key: "d", Want: Absent, Got: `0`}}},
		{name: "a known difference", got: state("a", `1`, "b", `"y"`, "c", `true`), known: []Known{known}},
		{name: "a known difference with another value is not excused", got: state("a", `1`, "b", `"z"`, "c", `true`),
			known: []Known{known}, unexplain: []Diff{{Key: "b", Want: `"x"`, Got: `"z"`}}, unusedKeys: []string{"b"}},
		{name: "a stale known difference", got: state("a", `1`, "b", `"x"`, "c", `true`),
			known: []Known{known}, unusedKeys: []string{"b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			un, unused := Compare(oracle, tc.got, tc.known)
			if !reflect.DeepEqual(un, tc.unexplain) {
				t.Errorf("unexplained %v, want %v", un, tc.unexplain)
			}
			var keys []string
			for _, k := range unused {
				keys = append(keys, k.Key)
			}
			if !reflect.DeepEqual(keys, tc.unusedKeys) {
				t.Errorf("unused %v, want %v", keys, tc.unusedKeys)
			}
		})
	}
}

func TestStateRoundTrip(t *testing.T) {
	var s State
	s.Source = "test"
	s.Set("q/args", map[string]any{"b": 1, "a": []string{"x"}})
	if s.Entries["q/args"] != `{"a":["x"],"b":1}` {
		t.Fatalf("canonical JSON %s", s.Entries["q/args"])
	}
	if s.Set("u", "<random>"); s.Entries["u"] != `"<random>"` {
		t.Fatalf("escaped: %s", s.Entries["u"])
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := WriteState(path, s); err != nil {
		t.Fatal(err)
	}
	back, err := ReadState(path)
	if err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("read back %+v, %v", back, err)
	}
}

func TestEnv(t *testing.T) {
	env := Env(Options{Namespace: "ns", Host: "127.0.0.1", Port: 15672, ClusterName: "rabbitmq", DeleteGuest: true})
	want := map[string]bool{"RABBITMQ_TOPOLOGY_CONTROLLER_NAMESPACE=ns": true, "RABBITMQ_REF_NAME=rabbitmq": true,
		"RABBITMQ_TOPOLOGY_CONTROLLER_RECONCILE_INTERVAL=1": true, "RABBITMQ_TOPOLOGY_CONTROLLER_DELETE_GUEST_USER=1": true,
		"RABBITMQ_TOPOLOGY_CONTROLLER_API_GROUP=rabbitmq.osh.openstack.org": true, "RABBITMQ_PORT=15672": true}
	for _, e := range env {
		delete(want, e)
	}
	if len(want) != 0 {
		t.Fatalf("missing %v in %v", want, env)
	}
}
