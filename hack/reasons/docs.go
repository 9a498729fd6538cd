package main

import (
	"sort"

	"github.com/c5c3/orderhub/hack/internal/reasontable"
)

// triple is one condition (Type, Status, Reason) a reference page lists for
// its Kind, or one event (Type "event", Status Normal or Warning, Reason the
// event's reason) the page names.
type triple struct {
	Kind, Type, Status, Reason string
}

// eventType is the Type of an event triple.
const eventType = "event"

func (t triple) String() string { return t.Kind + " " + t.Type + " " + t.Status + " " + t.Reason }

// parseReference reads every docs/reference page under dir that has a
// "| Kind | <Kind> |" row (hack/internal/reasontable) and returns, sorted,
// the triples of its condition table and of the events its prose names. A
// Type of "both" stands for each sub-condition type of the table; a row
// listing several reasons yields a triple each. A page whose table has a
// row it cannot read is an error.
func parseReference(dir string) ([]triple, error) {
	pages, err := reasontable.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	seen := map[triple]bool{}
	var out []triple
	for _, pg := range pages {
		for _, t := range pageTriples(pg) {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}

// pageTriples turns the rows and events of one page into triples.
func pageTriples(pg reasontable.Page) []triple {
	subTypes := pg.SubTypes()
	var out []triple
	for _, r := range pg.Rows {
		types := []string{r.Type}
		if r.Type == reasontable.Both {
			types = subTypes
		}
		for _, reason := range r.Reasons {
			for _, typ := range types {
				out = append(out, triple{Kind: pg.Kind, Type: typ, Status: r.Status, Reason: reason})
			}
		}
	}
	for _, e := range pg.Events {
		out = append(out, triple{Kind: pg.Kind, Type: eventType, Status: e.Status, Reason: e.Reason})
	}
	return out
}
