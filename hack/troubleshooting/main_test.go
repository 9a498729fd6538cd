package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed page is what the generator writes from the repository's
// tables and remedies (the check make vet runs), and every reason of every
// table has its section.
func TestCommittedPageIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	if err := run(root, true); err != nil {
		t.Fatal(err)
	}
	es, err := readTables(filepath.Join(root, "docs", "reference"))
	if err != nil || len(es) == 0 {
		t.Fatalf("tables: %d entries, %v", len(es), err)
	}
	page, _ := os.ReadFile(filepath.Join(root, "docs", "troubleshooting.md"))
	for _, e := range es {
		if !strings.Contains(string(page), "\n## "+e.Reason+"\n") {
			t.Errorf("no section for %s", e.Reason)
		}
	}
}

// A reason added to a table without a remedy, or a remedy left behind, fails
// the generator naming it.
func TestCoverageNamesGaps(t *testing.T) {
	es := []entry{{Kind: "K", Type: "Ready", Status: "False", Reason: "NewReason", Meaning: "m"}}
	missing, orphans := coverage(es, map[string]remedy{"OldReason": {Check: "c", Remedy: "r"}})
	if len(missing) != 1 || missing[0] != "NewReason" || len(orphans) != 1 || orphans[0] != "OldReason" {
		t.Fatalf("missing %v orphans %v", missing, orphans)
	}
}
