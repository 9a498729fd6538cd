package identity

import (
	"context"
	"strings"
	"testing"
)

// ensureTracked follows the recorded ID: a rename finds nothing under the
// new name and returns the recorded object; a shared recorded object is never
// returned for a rename; a rename onto an existing name is an error.
func TestEnsureTracked(t *testing.T) {
	t.Parallel()
	type obj struct{ id, name string }
	tests := []struct {
		name      string
		byName    *obj // what the lookup by the new name finds
		recorded  string
		exists    bool // the recorded object still exists
		shared    bool // another resource records it
		unique    bool // Keystone keeps the name unique: create first
		want      string
		created   bool
		wantCalls string // f find, g get, c create
		wantErr   string
	}{
		{"nothing recorded, found", &obj{"a", "n"}, "", false, false, false, "a", false, "f", ""},
		{"nothing recorded, created", nil, "", false, false, false, "new", true, "fc", ""},
		{"unique, nothing recorded: created without a lookup", nil, "", false, false, true, "new", true, "c", ""},
		{"unique, recorded: looked up as before", &obj{"a", "n"}, "a", true, false, true, "a", false, "f", ""},
		{"steady state: found is the recorded one", &obj{"a", "n"}, "a", true, false, false, "a", false, "f", ""},
		{"rename: the recorded object is followed", nil, "a", true, false, false, "a", false, "fg", ""},
		{"recorded gone: created", nil, "a", false, false, false, "new", true, "fgc", ""},
		{"recorded shared: not renamed, a new one created", nil, "a", true, true, false, "new", true, "fc", ""},
		{"recorded shared, new name exists: adopted", &obj{"b", "n"}, "a", true, true, false, "b", false, "f", ""},
		{"recorded gone, new name exists: adopted", &obj{"b", "n"}, "a", false, false, false, "b", false, "fg", ""},
		{"rename onto an existing name: refused", &obj{"b", "n"}, "a", true, false, false, "", false, "fg", "id b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := ""
			got, created, err := ensureTracked(context.Background(), tracking[obj]{
				what: "domain n", recorded: tc.recorded, unique: tc.unique,
				shared: func(id string) (bool, error) { return tc.shared && id == tc.recorded, nil },
				find: func(context.Context) (obj, bool, error) {
					calls += "f"
					if tc.byName == nil {
						return obj{}, false, nil
					}
					return *tc.byName, true, nil
				},
				get: func(_ context.Context, id string) (obj, bool, error) {
					calls += "g"
					return obj{id, "old"}, tc.exists && id == tc.recorded, nil
				},
				create: func(context.Context) (obj, error) { calls += "c"; return obj{"new", "n"}, nil },
				id:     func(o obj) string { return o.id },
				name:   func(o obj) string { return o.name },
			})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "id a") {
					t.Fatalf("err = %v, want one naming both IDs", err)
				}
			} else if err != nil || got.id != tc.want || created != tc.created {
				t.Fatalf("got %v created=%v err=%v, want %s created=%v", got, created, err, tc.want, tc.created)
			}
			if calls != tc.wantCalls {
				t.Errorf("calls %q, want %q", calls, tc.wantCalls)
			}
		})
	}
}

func TestSetMember(t *testing.T) {
	t.Parallel()
	s := setMember(nil, "public", true)
	s = setMember(s, "admin", true)
	s = setMember(s, "admin", true)
	if strings.Join(s, ",") != "admin,public" {
		t.Fatalf("set = %v", s)
	}
	if s = setMember(setMember(s, "admin", false), "public", false); s != nil {
		t.Fatalf("emptied set = %v, want nil", s)
	}
}
