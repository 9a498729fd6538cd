// Package generations decides generation-scoped passwords
// (docs/reference/keystoneservice.md, "Consumer Secret contract";
// docs/reference/keystoneuser.md, "Rotation"). Pure: callers pass the Secrets.
package generations

import (
	"slices"
)

// Generation is one existing password Secret.
type Generation struct {
	Answers string
	Adopted bool
}

// PasswordInputs is what the password plan is decided from.
type PasswordInputs struct {
	Existing map[int64]Generation
	Request  string
	// Applied is the generation of the User's appliedPasswordRef (0: none).
	Applied int64
	// Adopting: the first generation is for a user account.adopt takes over.
	Adopting bool
}

// PasswordPlan is what to do with the password Secrets this pass.
type PasswordPlan struct {
	// Create is the generation to create (0: none).
	Create        int64
	CreateAnswers string
	CreateAdopted bool
	Desired       int64
	// Deliverable is the applied generation Keystone accepts, the only one that
	// may reach the consumer Secret (0: none yet).
	Deliverable int64
	// Delete are the generations older than the applied one.
	Delete []int64
}

// PlanPassword decides the password generations
// (docs/reference/keystoneservice.md, "Consumer Secret contract"): create 1
// first, newest+1 for an unanswered rotation request or an applied adopted
// generation (so K-ORC writes it, see
// https://github.com/k-orc/openstack-resource-controller/issues/920); deliver
// Applied unless adopted or missing; delete older generations.
func PlanPassword(in PasswordInputs) PasswordPlan {
	var p PasswordPlan
	var newest int64
	for g := range in.Existing {
		newest = max(newest, g)
	}
	switch {
	case newest == 0:
		p.Create, p.CreateAnswers, p.CreateAdopted = 1, in.Request, in.Adopting
	case in.Request != "" && in.Existing[newest].Answers != in.Request:
		p.Create, p.CreateAnswers = newest+1, in.Request
	case in.Applied == newest && in.Existing[newest].Adopted:
		p.Create, p.CreateAnswers = newest+1, in.Existing[newest].Answers
	}
	p.Desired = max(newest, p.Create)
	if g, ok := in.Existing[in.Applied]; ok && in.Applied > 0 && !g.Adopted {
		p.Deliverable = in.Applied
	}
	if in.Applied > 0 {
		for g := range in.Existing {
			if g < in.Applied {
				p.Delete = append(p.Delete, g)
			}
		}
		slices.Sort(p.Delete)
	}
	return p
}
