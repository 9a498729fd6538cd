package main

import (
	"github.com/c5c3/orderhub/hack/internal/reasontable"
)

// entry is one reason of one row of a condition table: the Kind of the page,
// the condition Type ("both" for each sub-condition), Status and Meaning.
type entry struct {
	Kind, Type, Status, Reason, Meaning string
}

// readTables returns the entries of the condition tables of the reference
// pages under dir (read by hack/internal/reasontable), in page and row
// order: a row listing several reasons yields one entry each.
func readTables(dir string) ([]entry, error) {
	pages, err := reasontable.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []entry
	for _, pg := range pages {
		for _, r := range pg.Rows {
			for _, reason := range r.Reasons {
				out = append(out, entry{Kind: pg.Kind, Type: r.Type, Status: r.Status, Reason: reason, Meaning: r.Meaning})
			}
		}
	}
	return out, nil
}
