package oshref

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// State is a broker state after normalisation: one entry per observed field,
// keyed "<phase>/<kind>/<names…>/<field>", the value canonical JSON. Names
// are the corpus names (the run's prefix removed), so two runs, and two
// controllers, compare key by key.
type State struct {
	// Source names what produced the state (not compared).
	Source  string            `json:"source"`
	Entries map[string]string `json:"entries"`
}

// Set records value under key, as canonical JSON (encoding/json sorts map
// keys; <, > and & are kept as they are).
func (s *State) Set(key string, value any) {
	if s.Entries == nil {
		s.Entries = map[string]string{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(value); err != nil {
		s.Entries[key] = fmt.Sprintf("%q", fmt.Sprint(value))
		return
	}
	s.Entries[key] = strings.TrimSuffix(b.String(), "\n")
}

// Absent is the value of a key missing on one side of a Diff.
const Absent = "<absent>"

// Diff is one key whose values differ: Want is the oracle's, Got ours.
type Diff struct{ Key, Want, Got string }

func (d Diff) String() string { return fmt.Sprintf("%s: oracle %s, orderhub %s", d.Key, d.Want, d.Got) }

// Known is a deliberate difference: exactly this key with exactly these two
// values. Doc names the docs/topology.md entry that gives the reason.
type Known struct {
	Diff
	Doc string
}

// Compare returns the differences between oracle and got that known does not
// list, and the known entries that matched no difference (stale ones, which
// must go from the list and the docs).
func Compare(oracle, got State, known []Known) (unexplained []Diff, unused []Known) {
	keys := map[string]bool{}
	for k := range oracle.Entries {
		keys[k] = true
	}
	for k := range got.Entries {
		keys[k] = true
	}
	value := func(s State, k string) string {
		if v, ok := s.Entries[k]; ok {
			return v
		}
		return Absent
	}
	used := make([]bool, len(known))
	for k := range keys {
		d := Diff{Key: k, Want: value(oracle, k), Got: value(got, k)}
		if d.Want == d.Got {
			continue
		}
		explained := false
		for i, kn := range known {
			if kn.Diff == d {
				used[i], explained = true, true
			}
		}
		if !explained {
			unexplained = append(unexplained, d)
		}
	}
	sort.Slice(unexplained, func(i, j int) bool { return unexplained[i].Key < unexplained[j].Key })
	for i, kn := range known {
		if !used[i] {
			unused = append(unused, kn)
		}
	}
	return unexplained, unused
}

// ReadState reads a golden file.
func ReadState(path string) (State, error) {
	var s State
	b, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(b, &s)
}

// WriteState writes s as an indented golden file.
func WriteState(path string, s State) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
