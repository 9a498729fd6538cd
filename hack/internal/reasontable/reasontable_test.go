package reasontable

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A reference page: the Kind row, a condition table with a "both" row and a
// row of several reasons, and events named before and after their type.
const page = `# X

| Field | Value |
|---|---|
| Kind | Widget |

| Type | Status | Reason | Meaning |
|---|---|---|---|
| CredentialReady | True | Minted | ok |
| DeliveryReady | False | Refused | a Secret |
| both | False | NotFound / Gone | gates |
| Ready | True | AllReady | both True |

The hub records the Warning event Revoked; a Deferred Normal event is emitted.
`

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Rows keep their line, cells and reasons; events come from the prose; a
// page without a Kind row is not read, even with a table that is no
// condition table.
func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "widget.md", page)
	write(t, dir, "guide.md", "| Type | Status | Reason |\n|---|---|---|\n| a | b | c |\n")
	pages, err := ReadDir(dir)
	if err != nil || len(pages) != 1 {
		t.Fatalf("pages %+v, %v", pages, err)
	}
	pg := pages[0]
	want := []Row{
		{Line: 9, Type: "CredentialReady", Status: "True", Reasons: []string{"Minted"}, Meaning: "ok"},
		{Line: 10, Type: "DeliveryReady", Status: "False", Reasons: []string{"Refused"}, Meaning: "a Secret"},
		{Line: 11, Type: Both, Status: "False", Reasons: []string{"NotFound", "Gone"}, Meaning: "gates"},
		{Line: 12, Type: "Ready", Status: "True", Reasons: []string{"AllReady"}, Meaning: "both True"},
	}
	if pg.Kind != "Widget" || !reflect.DeepEqual(pg.Rows, want) {
		t.Errorf("kind %q rows:\n%+v\nwant:\n%+v", pg.Kind, pg.Rows, want)
	}
	if ev := []Event{{"Warning", "Revoked"}, {"Normal", "Deferred"}}; !reflect.DeepEqual(pg.Events, ev) {
		t.Errorf("events %+v, want %+v", pg.Events, ev)
	}
	if st := pg.SubTypes(); !reflect.DeepEqual(st, []string{"CredentialReady", "DeliveryReady"}) {
		t.Errorf("sub-types %v", st)
	}
}

// A row that is not | Type | True/False | Reason | is an error naming the
// file and line: a status, a prose reason cell, a prose type.
func TestReadPageRejectsBadRows(t *testing.T) {
	for _, bad := range []string{
		strings.Replace(page, "| Ready | True | AllReady |", "| Ready | Maybe | AllReady |", 1),
		strings.Replace(page, "| Ready | True | AllReady |", "| Ready | True | all ready |", 1),
		strings.Replace(page, "| Ready | True | AllReady |", "| the Ready one | True | AllReady |", 1),
	} {
		dir := t.TempDir()
		write(t, dir, "widget.md", bad)
		if _, err := ReadPage(filepath.Join(dir, "widget.md")); err == nil || !strings.Contains(err.Error(), "widget.md:12") {
			t.Errorf("bad row accepted or not located: %v", err)
		}
	}
}
