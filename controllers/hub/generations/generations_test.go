package generations

import (
	"slices"
	"testing"
)

func TestPlanPassword(t *testing.T) {
	t.Parallel()
	g := func(answers string, adopted bool) Generation { return Generation{Answers: answers, Adopted: adopted} }
	tests := []struct {
		name string
		in   PasswordInputs
		want PasswordPlan
	}{
		{"first pass creates generation 1", PasswordInputs{},
			PasswordPlan{Create: 1, Desired: 1}},
		{"first pass answers the request already there", PasswordInputs{Request: "r1"},
			PasswordPlan{Create: 1, CreateAnswers: "r1", Desired: 1}},
		{"adopting marks generation 1", PasswordInputs{Adopting: true},
			PasswordPlan{Create: 1, CreateAdopted: true, Desired: 1}},
		{"waiting for K-ORC", PasswordInputs{Existing: map[int64]Generation{1: g("", false)}},
			PasswordPlan{Desired: 1}},
		{"steady", PasswordInputs{Existing: map[int64]Generation{1: g("", false)}, Applied: 1},
			PasswordPlan{Desired: 1, Deliverable: 1}},
		{"adopted and applied: rewrite at once", PasswordInputs{Existing: map[int64]Generation{1: g("", true)}, Applied: 1},
			PasswordPlan{Create: 2, Desired: 2}},
		{"adopted rewrite applied: deliver, drop 1", PasswordInputs{Existing: map[int64]Generation{1: g("", true), 2: g("", false)}, Applied: 2},
			PasswordPlan{Desired: 2, Deliverable: 2, Delete: []int64{1}}},
		{"new request rotates", PasswordInputs{Existing: map[int64]Generation{1: g("", false)}, Applied: 1, Request: "r1"},
			PasswordPlan{Create: 2, CreateAnswers: "r1", Desired: 2, Deliverable: 1}},
		{"answered request does not rotate again", PasswordInputs{Existing: map[int64]Generation{1: g("", false), 2: g("r1", false)}, Applied: 1, Request: "r1"},
			PasswordPlan{Desired: 2, Deliverable: 1}},
		{"rotation applied: deliver 2, drop 1", PasswordInputs{Existing: map[int64]Generation{1: g("", false), 2: g("r1", false)}, Applied: 2, Request: "r1"},
			PasswordPlan{Desired: 2, Deliverable: 2, Delete: []int64{1}}},
		{"second request during a rotation", PasswordInputs{Existing: map[int64]Generation{1: g("", false), 2: g("r1", false)}, Applied: 1, Request: "r2"},
			PasswordPlan{Create: 3, CreateAnswers: "r2", Desired: 3, Deliverable: 1}},
		{"applied generation missing: nothing deliverable", PasswordInputs{Existing: map[int64]Generation{2: g("", false)}, Applied: 1},
			PasswordPlan{Desired: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := PlanPassword(tc.in)
			if got.Create != tc.want.Create || got.CreateAnswers != tc.want.CreateAnswers || got.CreateAdopted != tc.want.CreateAdopted ||
				got.Desired != tc.want.Desired || got.Deliverable != tc.want.Deliverable || !slices.Equal(got.Delete, tc.want.Delete) {
				t.Errorf("PlanPassword(%+v) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}
