package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// entry is one reason of one row of a condition table: the Kind of the page,
// the condition Type ("both" for each sub-condition), Status and Meaning.
type entry struct {
	Kind, Type, Status, Reason, Meaning string
}

var (
	kindRow   = regexp.MustCompile(`^\|\s*Kind\s*\|\s*([A-Z][A-Za-z]+)\s*\|`)
	headerRow = regexp.MustCompile(`^\|\s*Type\s*\|\s*Status\s*\|\s*Reason\s*\|\s*Meaning\s*\|`)
	reasonRe  = regexp.MustCompile(`^[A-Z][A-Za-z]+$`)
)

// readTables returns the entries of the condition tables
// ("| Type | Status | Reason | Meaning |") of the pages under dir that name a
// Kind ("| Kind | <Kind> |"), in page and row order. A Reason cell "A / B"
// yields one entry per reason; a cell that is no reason name is an error.
func readTables(dir string) ([]entry, error) {
	pages, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	var out []entry
	for _, p := range pages {
		es, err := readPage(p)
		if err != nil {
			return nil, err
		}
		out = append(out, es...)
	}
	return out, nil
}

// readPage returns the entries of one page.
func readPage(path string) ([]entry, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var kind string
	var out []entry
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
		case inTable && strings.HasPrefix(line, "|"):
			es, err := rowEntries(kind, line)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, n, err)
			}
			out = append(out, es...)
		default:
			inTable = false
		}
	}
	if kind == "" {
		return nil, sc.Err()
	}
	return out, sc.Err()
}

// rowEntries splits one table row; the separator row yields none.
func rowEntries(kind, line string) ([]entry, error) {
	cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	if len(cells) < 4 || strings.HasPrefix(cells[0], "-") {
		return nil, nil
	}
	meaning := strings.Join(cells[3:], "|")
	var out []entry
	for _, r := range strings.Split(cells[2], "/") {
		r = strings.TrimSpace(r)
		if !reasonRe.MatchString(r) {
			return nil, fmt.Errorf("reason cell %q is not a reason name", cells[2])
		}
		out = append(out, entry{Kind: kind, Type: cells[0], Status: cells[1], Reason: r, Meaning: meaning})
	}
	return out, nil
}
