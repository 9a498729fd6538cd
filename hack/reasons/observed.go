package main

import (
	"bufio"
	"os"
	"regexp"
	"strings"
)

// observation is one assertion a test logged through
// testenv.ObservedCondition or testenv.ObservedEvent, with the outcome of
// that test (top-level test or subtest, by its full name) in the log.
type observation struct {
	t       triple
	dir     string // the test's package directory, relative to the module root
	test    string // the full test name, e.g. TestX/sub
	outcome outcome
}

// The lines internal/testenv/observed.go writes (after t.Logf's
// "file.go:N: " prefix).
var (
	observedCondition = regexp.MustCompile(`reasons-observed: condition (\S+) (\S+) (\S+) (\S+) (\S+)\s*$`)
	observedEvent     = regexp.MustCompile(`reasons-observed: event (\S+) (\S+) (\S+) (\S+)\s*$`)
)

// parseObserved reads the observations of a `go test -v` log. A package's
// output is contiguous and ends with its "ok"/"FAIL" line, which assigns
// the observations and the test results read since the previous one; an
// observation whose test has no result line is notRun.
func parseObserved(path, module string) ([]observation, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var out, pending []observation
	results := map[string]outcome{}
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if o, ok := observedLine(line); ok {
			pending = append(pending, o)
			continue
		}
		if m := resultLine.FindStringSubmatch(line); m != nil {
			results[m[3]] = outcome(m[2])
			continue
		}
		m := packageLine.FindStringSubmatch(line)
		if m == nil || (m[2] != module && !strings.HasPrefix(m[2], module+"/")) {
			continue
		}
		dir := strings.TrimPrefix(strings.TrimPrefix(m[2], module), "/")
		if dir == "" {
			dir = "."
		}
		for _, o := range pending {
			o.dir, o.outcome = dir, notRun
			if r, ok := results[o.test]; ok {
				o.outcome = r
			}
			out = append(out, o)
		}
		pending, results = nil, map[string]outcome{}
	}
	return out, sc.Err()
}

// observedLine parses one observation line.
func observedLine(line string) (observation, bool) {
	if m := observedCondition.FindStringSubmatch(line); m != nil {
		return observation{test: m[1], t: triple{Kind: m[2], Type: m[3], Status: m[4], Reason: m[5]}}, true
	}
	if m := observedEvent.FindStringSubmatch(line); m != nil {
		return observation{test: m[1], t: triple{Kind: m[2], Type: eventType, Status: m[3], Reason: m[4]}}, true
	}
	return observation{}, false
}
