package consumers

import (
	"cmp"
	"slices"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// Workload is what Decide needs of one consumer of the Secret.
type Workload struct {
	Kind, Name string
	OptedIn    bool
	// Stamp is the pod template's value under the Secret's StampKey ("" none).
	Stamp     string
	RolledOut bool
}

// Plan is Decide's answer.
type Plan struct {
	// Stamp is the index in the sorted workloads to stamp now, -1 for none.
	Stamp int
	// Workloads sorted by kind, then name; Statuses in the same order, with
	// the one stamped now RollingOut.
	Workloads []Workload
	Statuses  []c5c3v1alpha1.ConsumerStatus
}

// Decide stamps at most one workload per Secret at a time: while an opted-in
// workload carrying want has not rolled out, nothing is stamped; else the
// first opted-in workload still rolling out an older stamp is stamped
// again with want (its rollout would bring a superseded credential); else
// the first opted-in workload (by kind, then name) not carrying want is. A
// workload already carrying want is never stamped again
// (docs/reference/consumers.md, "Order of rollouts").
func Decide(ws []Workload, want string) Plan {
	ws = slices.Clone(ws)
	slices.SortFunc(ws, func(a, b Workload) int { return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name)) })
	p := Plan{Stamp: -1, Workloads: ws}
	rolling := func(w Workload) bool { return w.OptedIn && w.Stamp != "" && !w.RolledOut }
	switch {
	case slices.ContainsFunc(ws, func(w Workload) bool { return rolling(w) && w.Stamp == want }):
	case slices.ContainsFunc(ws, rolling):
		p.Stamp = slices.IndexFunc(ws, rolling)
	default:
		p.Stamp = slices.IndexFunc(ws, func(w Workload) bool { return w.OptedIn && w.Stamp != want })
	}
	for i, w := range ws {
		st := c5c3v1alpha1.ConsumerStatus{Kind: w.Kind, Name: w.Name, Stamp: Shown(w.Stamp)}
		switch {
		case !w.OptedIn:
			st.State = c5c3v1alpha1.ConsumerNotOptedIn
		case i == p.Stamp:
			st.Stamp, st.State = want, c5c3v1alpha1.ConsumerRollingOut
		case w.Stamp != want:
			st.State = c5c3v1alpha1.ConsumerQueued
		case w.RolledOut:
			st.State = c5c3v1alpha1.ConsumerRolledOut
		default:
			st.State = c5c3v1alpha1.ConsumerRollingOut
		}
		p.Statuses = append(p.Statuses, st)
	}
	return p
}
