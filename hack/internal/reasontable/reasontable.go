// Package reasontable reads the condition tables of the docs/reference pages,
// the one parser behind hack/troubleshooting (which renders
// docs/troubleshooting.md from them) and hack/reasons (which checks that every
// row is asserted by a live test).
//
// A page is read only when it has a "| Kind | <Kind> |" row. Its condition
// table is headed "| Type | Status | Reason | Meaning |"; a row reads
// "| <Type or both> | True or False | <Reason> [/ <Reason>...] | <meaning> |",
// where "both" stands for each sub-condition of the table (every Type but
// Ready). Events are named in the page's prose as "Warning event <Reason>" or
// "<Reason> Normal event".
package reasontable

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Both is the Type cell that stands for each sub-condition of the table.
const Both = "both"

// Row is one row of a condition table.
type Row struct {
	Line         int      // 1-based line number in the page
	Type, Status string   // the condition type (or Both) and True or False
	Reasons      []string // one or more reason names
	Meaning      string   // the Meaning cell ("" when the table has none)
}

// Event is an event the page's prose names: Status Normal or Warning.
type Event struct {
	Status, Reason string
}

// Page is what one reference page documents.
type Page struct {
	Path, Kind string
	Rows       []Row
	Events     []Event
}

var (
	kindRow     = regexp.MustCompile(`^\|\s*Kind\s*\|\s*([A-Z][A-Za-z]+)\s*\|`)
	headerRow   = regexp.MustCompile(`^\|\s*Type\s*\|\s*Status\s*\|\s*Reason\s*\|`)
	name        = regexp.MustCompile(`^[A-Z][A-Za-z]+$`)
	eventBefore = regexp.MustCompile(`\b(Normal|Warning) event ([A-Z][A-Za-z]+)\b`)
	eventAfter  = regexp.MustCompile(`\b([A-Z][A-Za-z]+) (Normal|Warning) event\b`)
)

// ReadDir returns the pages under dir (*.md) that name a Kind, in file name
// order. An unreadable row is an error naming its file and line.
func ReadDir(dir string) ([]Page, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	var out []Page
	for _, p := range paths {
		pg, err := ReadPage(p)
		if err != nil {
			return nil, err
		}
		if pg.Kind != "" {
			out = append(out, pg)
		}
	}
	return out, nil
}

// ReadPage reads one page; its Kind is "" (and nothing else is read) when
// it has no Kind row.
func ReadPage(path string) (Page, error) {
	fh, err := os.Open(path)
	if err != nil {
		return Page{}, err
	}
	defer fh.Close()
	pg := Page{Path: path}
	inTable := false
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1024*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := kindRow.FindStringSubmatch(line); m != nil && pg.Kind == "" {
			pg.Kind = m[1]
		}
		switch {
		case headerRow.MatchString(line):
			inTable = true
		case inTable && strings.HasPrefix(line, "|"):
			if r, ok := parseRow(line); ok {
				r.Line = n
				pg.Rows = append(pg.Rows, r)
			}
		default:
			inTable = false
			pg.Events = append(pg.Events, events(line)...)
		}
	}
	if err := sc.Err(); err != nil || pg.Kind == "" {
		return Page{Path: path}, err
	}
	for _, r := range pg.Rows {
		if err := r.check(); err != nil {
			return Page{}, fmt.Errorf("%s:%d: %w", path, r.Line, err)
		}
	}
	return pg, nil
}

// parseRow reads one table row; the separator row is not a row (ok false).
func parseRow(line string) (Row, bool) {
	cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	if len(cells) < 3 || strings.HasPrefix(cells[0], "-") {
		return Row{}, false
	}
	r := Row{Type: cells[0], Status: cells[1]}
	if len(cells) > 3 {
		r.Meaning = strings.Join(cells[3:], "|")
	}
	for _, reason := range strings.Split(cells[2], "/") {
		r.Reasons = append(r.Reasons, strings.TrimSpace(reason))
	}
	return r, true
}

// check fails unless r reads | Type or both | True or False | Reason [/
// Reason] |.
func (r Row) check() error {
	ok := (r.Type == Both || name.MatchString(r.Type)) && (r.Status == "True" || r.Status == "False")
	for _, reason := range r.Reasons {
		ok = ok && name.MatchString(reason)
	}
	if !ok {
		return fmt.Errorf("a condition row reads | Type or both | True or False | Reason [/ Reason] | Meaning |, got %q, %q, %q",
			r.Type, r.Status, strings.Join(r.Reasons, " / "))
	}
	return nil
}

// events returns the events a prose line names.
func events(line string) []Event {
	var out []Event
	for _, m := range eventBefore.FindAllStringSubmatch(line, -1) {
		out = append(out, Event{Status: m[1], Reason: m[2]})
	}
	for _, m := range eventAfter.FindAllStringSubmatch(line, -1) {
		out = append(out, Event{Status: m[2], Reason: m[1]})
	}
	return out
}

// SubTypes returns the condition types of the rows other than Ready and
// Both, in first-seen order: what a Both row stands for.
func (p Page) SubTypes() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range p.Rows {
		if r.Type != Both && r.Type != "Ready" && !seen[r.Type] {
			seen[r.Type] = true
			out = append(out, r.Type)
		}
	}
	return out
}
