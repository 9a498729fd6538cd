package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// knownGap is one line of the known-gaps file: a triple without a live
// test yet, and why (which test is missing).
type knownGap struct {
	t    triple
	why  string
	line int
}

// parseKnownGaps reads the known-gaps file: one gap a line, "<Kind>
// <Type> <Status> <Reason> <why>", the why required; blank lines and lines
// starting with # are skipped. A missing file is no known gaps.
func parseKnownGaps(path string) ([]knownGap, error) {
	fh, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var out []knownGap
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 5 {
			return nil, fmt.Errorf("%s:%d: want <Kind> <Type> <Status> <Reason> <why>, got %q", path, n, line)
		}
		out = append(out, knownGap{t: triple{Kind: f[0], Type: f[1], Status: f[2], Reason: f[3]},
			why: strings.Join(f[4:], " "), line: n})
	}
	return out, sc.Err()
}

// kindCoverage is what reportKinds decided for one documented triple.
type kindCoverage struct {
	t      triple
	live   []string // passing tests and suites that asserted it
	others []string // tests that asserted it and did not pass, with outcome
	known  *knownGap
}

// reportKinds prints, per kind, each documented triple with the passing
// tests that asserted it, then the totals and the failures, and returns
// the exit status: 1 when a triple has no live test and is not a known gap,
// or when a known gap is no longer documented; 0 otherwise. A known gap a
// passing test asserted is printed as a note to remove the entry, not
// failed: a short-lived state can be seen in one run and missed in the
// next, and the run must not depend on that.
func reportKinds(w io.Writer, docs []triple, obs []observation, suites []suiteTriple, suiteOutcome func(string) outcome, known []knownGap) int {
	cov := coverage(docs, obs, suites, suiteOutcome, known)
	var failures, notes []string
	documented := map[triple]bool{}
	for _, t := range docs {
		documented[t] = true
	}
	for _, k := range known {
		if !documented[k.t] {
			failures = append(failures, fmt.Sprintf("known gap %s (line %d) is no longer listed by docs/reference: remove it", k.t, k.line))
		}
	}
	type totals struct{ triples, live, known, gaps int }
	perKind := map[string]*totals{}
	var kinds []string
	fmt.Fprintf(w, "conditions and events of docs/reference/*.md -> live tests (kind type status reason)\n")
	for _, c := range cov {
		tot := perKind[c.t.Kind]
		if tot == nil {
			tot = &totals{}
			perKind[c.t.Kind] = tot
			kinds = append(kinds, c.t.Kind)
		}
		tot.triples++
		cell := strings.Join(append(append([]string{}, c.live...), c.others...), ", ")
		switch {
		case len(c.live) > 0 && c.known != nil:
			tot.live++
			notes = append(notes, fmt.Sprintf("known gap %s (line %d) is live now: remove it from the known-gaps file", c.t, c.known.line))
		case len(c.live) > 0:
			tot.live++
		case c.known != nil:
			tot.known++
			cell = strings.TrimPrefix(cell+"  -- KNOWN GAP: "+c.known.why, ", ")
		default:
			tot.gaps++
			cell = strings.TrimPrefix(cell+"  -- GAP", ", ")
			failures = append(failures, fmt.Sprintf("%s: no passing test asserts it: wait for it on a %s in an integration test "+
				"(through a helper that calls testenv.ObservedCondition or ObservedEvent), or assert it in a chainsaw suite", c.t, c.t.Kind))
		}
		fmt.Fprintf(w, "  %-66s %s\n", c.t, strings.TrimSpace(cell))
	}
	fmt.Fprintf(w, "%-32s %8s %6s %12s %6s\n", "kind", "triples", "live", "known gaps", "gaps")
	var all totals
	for _, k := range kinds {
		t := perKind[k]
		fmt.Fprintf(w, "%-32s %8d %6d %12d %6d\n", k, t.triples, t.live, t.known, t.gaps)
		all.triples, all.live, all.known, all.gaps = all.triples+t.triples, all.live+t.live, all.known+t.known, all.gaps+t.gaps
	}
	fmt.Fprintf(w, "%-32s %8d %6d %12d %6d\n", "total", all.triples, all.live, all.known, all.gaps)
	for _, n := range notes {
		fmt.Fprintf(w, "NOTE: %s\n", n)
	}
	if len(failures) == 0 {
		return 0
	}
	fmt.Fprintf(w, "FAIL: documented conditions without a live test (hack/reasons/main.go):\n")
	for _, f := range failures {
		fmt.Fprintf(w, "  %s\n", f)
	}
	return 1
}

// coverage matches the documented triples with the observations and the
// chainsaw assertions, in docs order.
func coverage(docs []triple, obs []observation, suites []suiteTriple, suiteOutcome func(string) outcome, known []knownGap) []kindCoverage {
	live, others := map[triple]map[string]bool{}, map[triple]map[string]bool{}
	add := func(m map[triple]map[string]bool, t triple, s string) {
		if m[t] == nil {
			m[t] = map[string]bool{}
		}
		m[t][s] = true
	}
	for _, o := range obs {
		name := o.dir + "." + o.test
		if o.outcome == passed {
			add(live, o.t, name)
		} else {
			add(others, o.t, name+" ("+string(o.outcome)+")")
		}
	}
	for _, s := range suites {
		if o := suiteOutcome(s.suite); o == passed {
			add(live, s.t, "chainsaw:"+s.suite)
		} else {
			add(others, s.t, "chainsaw:"+s.suite+" ("+string(o)+")")
		}
	}
	byTriple := map[triple]*knownGap{}
	for i := range known {
		byTriple[known[i].t] = &known[i]
	}
	out := make([]kindCoverage, 0, len(docs))
	for _, t := range docs {
		c := kindCoverage{t: t, live: sorted(live[t]), known: byTriple[t]}
		for s := range others[t] {
			if !live[t][strings.SplitN(s, " (", 2)[0]] {
				c.others = append(c.others, s)
			}
		}
		sort.Strings(c.others)
		out = append(out, c)
	}
	return out
}

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}
