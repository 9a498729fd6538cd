// Package generations decides generation-scoped passwords: which
// password Secret generation to create, which one the managed K-ORC User
// names, which one may be delivered and which are superseded
// (docs/reference/keystoneservice.md, "Consumer Secret contract";
// docs/reference/keystoneuser.md, "Rotation"). Pure: the KeystoneService
// and KeystoneUser reconcilers read the Secrets and pass them in.
package generations

import (
	"slices"
)

// Generation is one existing password Secret.
type Generation struct {
	// Answers is the rotation request value it answered ("" for none).
	Answers string
	// Adopted marks the first generation of an adopted user.
	Adopted bool
}

// PasswordInputs is what the password plan is decided from.
type PasswordInputs struct {
	// Existing are the password Secrets by generation.
	Existing map[int64]Generation
	// Request is the registration's rotation request annotation ("" none).
	Request string
	// Applied is the generation of the User's status.resource.appliedPasswordRef
	// (0: none yet).
	Applied int64
	// Adopting is true when the first generation is created for a user the
	// collision probe found and account.adopt consented to take over.
	Adopting bool
}

// PasswordPlan is what to do with the password Secrets this pass.
type PasswordPlan struct {
	// Create is the generation to create (0: none), with what it answers and
	// whether it is an adopted user's first generation.
	Create        int64
	CreateAnswers string
	CreateAdopted bool
	// Desired is the generation the User's passwordRef names.
	Desired int64
	// Deliverable is the generation K-ORC applied and Keystone accepts: the
	// only one that may reach the consumer Secret (0: none yet).
	Deliverable int64
	// Delete are the superseded generations (older than the applied one).
	Delete []int64
}

// PlanPassword decides the password generations
// (docs/reference/keystoneservice.md, "Consumer Secret contract"; the rotation
// mechanics of upstream github.com/blut/c5c3-forge
// operators/c5c3/internal/controller/reconcile_serviceaccounts.go):
//
//   - no generation yet: create 1 (marked adopted when Adopting);
//   - a rotation request value the newest generation does not answer:
//     create newest+1 — a rotation;
//   - the newest generation is applied but marked adopted: create newest+1,
//     which K-ORC writes to Keystone (closes the gap of K-ORC issue #920
//     on the first pass instead of waiting for a manual rotation);
//   - Deliverable is Applied unless that generation is marked adopted or
//     missing; generations older than Applied are deleted.
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
