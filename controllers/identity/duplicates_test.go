package identity

import (
	"slices"
	"testing"
)

func TestPickDuplicate(t *testing.T) {
	t.Parallel()
	ours := func(ids ...string) func(string) bool {
		return func(id string) bool { return slices.Contains(ids, id) }
	}
	tests := []struct {
		name     string
		ids      []string
		recorded string
		ours     func(string) bool
		adopt    bool
		want     string
		ok       bool
		others   []string
	}{
		{"new resource: the lowest ID adopted", []string{"c", "a", "b"}, "", nil, true, "a", true, []string{"b", "c"}},
		{"recorded wins over a lower foreign ID", []string{"b", "a"}, "b", nil, false, "b", true, []string{"a"}},
		{"recorded gone: a foreign one is not adopted", []string{"z"}, "b", nil, false, "", false, []string{"z"}},
		{"recorded gone: one another resource records is taken", []string{"z", "c", "a"}, "b", ours("c"), false, "c", true, []string{"a", "z"}},
		{"new resource: ours before a lower foreign ID", []string{"c", "a"}, "", ours("c"), true, "c", true, []string{"a"}},
		{"nothing in Keystone", nil, "b", nil, true, "", false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, others := pickDuplicate(tc.ids, tc.recorded, tc.ours, tc.adopt)
			if got != tc.want || ok != tc.ok || !slices.Equal(others, tc.others) {
				t.Fatalf("got %q %v %v, want %q %v %v", got, ok, others, tc.want, tc.ok, tc.others)
			}
		})
	}
}
