package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
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

var (
	kindRow     = regexp.MustCompile(`^\|\s*Kind\s*\|\s*([A-Z][A-Za-z]+)\s*\|`)
	headerRow   = regexp.MustCompile(`^\|\s*Type\s*\|\s*Status\s*\|\s*Reason\s*\|`)
	cellName    = regexp.MustCompile(`^[A-Z][A-Za-z]+$`)
	eventBefore = regexp.MustCompile(`\b(Normal|Warning) event ([A-Z][A-Za-z]+)\b`)
	eventAfter  = regexp.MustCompile(`\b([A-Z][A-Za-z]+) (Normal|Warning) event\b`)
)

// parseReference reads every docs/reference page under dir that has a
// "| Kind | <Kind> |" row and returns, sorted, the triples of its condition
// table ("| Type | Status | Reason | Meaning |") and the events its prose
// names ("Warning event <Reason>", "<Reason> Normal event"). A Type of
// "both" stands for each sub-condition type of the table (every type but
// Ready); a Reason cell "A / B" lists several reasons. A page whose table
// has a row it cannot read is an error.
func parseReference(dir string) ([]triple, error) {
	pages, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	seen := map[triple]bool{}
	var out []triple
	for _, p := range pages {
		ts, err := parsePage(p)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}

// row is one line of a condition table.
type row struct {
	line                 int
	typ, status, reasons string
}

// parsePage returns the triples of one page; none when it names no Kind.
func parsePage(path string) ([]triple, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var kind string
	var rows []row
	var events [][2]string // status, reason
	inTable := false
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1024*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := kindRow.FindStringSubmatch(line); m != nil && kind == "" {
			kind = m[1]
		}
		switch {
		case headerRow.MatchString(line):
			inTable = true
			continue
		case inTable && strings.HasPrefix(line, "|"):
			if cells := splitRow(line); len(cells) >= 3 && !strings.HasPrefix(cells[0], "-") {
				rows = append(rows, row{line: n, typ: cells[0], status: cells[1], reasons: cells[2]})
			}
			continue
		default:
			inTable = false
		}
		for _, m := range eventBefore.FindAllStringSubmatch(line, -1) {
			events = append(events, [2]string{m[1], m[2]})
		}
		for _, m := range eventAfter.FindAllStringSubmatch(line, -1) {
			events = append(events, [2]string{m[2], m[1]})
		}
	}
	if err := sc.Err(); err != nil || kind == "" {
		return nil, err
	}
	return expandRows(path, kind, rows, events)
}

// splitRow returns the trimmed cells of a markdown table row.
func splitRow(line string) []string {
	cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// expandRows turns the rows and events of one page into triples.
func expandRows(path, kind string, rows []row, events [][2]string) ([]triple, error) {
	var subTypes []string
	seenType := map[string]bool{}
	for _, r := range rows {
		if r.typ != "both" && r.typ != "Ready" && !seenType[r.typ] {
			seenType[r.typ] = true
			subTypes = append(subTypes, r.typ)
		}
	}
	var out []triple
	for _, r := range rows {
		types := []string{r.typ}
		if r.typ == "both" {
			types = subTypes
		}
		for _, reason := range strings.Split(r.reasons, "/") {
			reason = strings.TrimSpace(reason)
			if !cellName.MatchString(reason) || !cellName.MatchString(types[0]) || (r.status != "True" && r.status != "False") {
				return nil, fmt.Errorf("%s:%d: a condition row reads | Type | True or False | Reason |, got %q, %q, %q",
					path, r.line, r.typ, r.status, r.reasons)
			}
			for _, typ := range types {
				out = append(out, triple{Kind: kind, Type: typ, Status: r.status, Reason: reason})
			}
		}
	}
	for _, e := range events {
		out = append(out, triple{Kind: kind, Type: eventType, Status: e[0], Reason: e[1]})
	}
	return out, nil
}
