package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A `go test -v` log of two packages: a top-level result is assigned to the
// package whose "ok"/"FAIL" line follows it; a subtest counts by its last
// name element.
const log = `=== RUN   TestA
--- PASS: TestA (1.00s)
=== RUN   TestB
--- FAIL: TestB (2.00s)
FAIL
FAIL	example.com/m/controllers/hub/keystoneservice	3.1s
=== RUN   TestA
--- SKIP: TestA (0.00s)
=== RUN   TestIntegration_ChainsawLiveSuites
=== RUN   TestIntegration_ChainsawLiveSuites/keystone-user
    --- PASS: TestIntegration_ChainsawLiveSuites/keystone-user (9.00s)
--- PASS: TestIntegration_ChainsawLiveSuites (10.00s)
ok  	example.com/m/tests/e2e	10.2s
`

func TestParseResults(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(p, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := parseResults(p, "example.com/m")
	if err != nil {
		t.Fatal(err)
	}
	ks := "controllers/hub/keystoneservice"
	for _, c := range []struct {
		h    hit
		want outcome
	}{
		{hit{dir: ks, test: "keystoneservice.TestA", fn: "TestA"}, passed},
		{hit{dir: ks, test: "keystoneservice.TestB", fn: "TestB"}, failed},
		{hit{dir: ks, test: "keystoneservice.TestC", fn: "TestC"}, notRun},
		{hit{dir: "tests/e2e", test: "e2e.TestA", fn: "TestA"}, skipped},
		{hit{dir: "tests/e2e/c5c3/keystone-user", test: "chainsaw:c5c3/keystone-user", fn: "keystone-user"}, passed},
		{hit{dir: "tests/e2e/c5c3/keystone-service", test: "chainsaw:c5c3/keystone-service", fn: "keystone-service"}, notRun},
	} {
		if got := r.of(c.h); got != c.want {
			t.Errorf("%s in %s: %s, want %s", c.h.test, c.h.dir, got, c.want)
		}
	}
}

// The report fails on a reason without a passing test, naming the reason
// and what to add; an External-mode reason also needs a test in each
// required package.
func TestReport(t *testing.T) {
	ks, ac := "controllers/hub/keystoneservice", "controllers/hub/keystoneapplicationcredential"
	reasons := []reason{{"ReasonA", "A"}, {"ReasonB", "B"}, {"ReasonEndpointUnreachable", "EndpointUnreachable"}, {"ReasonGhost", "Ghost"}}
	hits := map[string][]hit{
		"ReasonA":                   {{dir: ks, test: "keystoneservice.TestA", fn: "TestA"}},
		"ReasonB":                   {{dir: ks, test: "keystoneservice.TestB", fn: "TestB"}},
		"ReasonEndpointUnreachable": {{dir: ks, test: "keystoneservice.TestA", fn: "TestA"}},
	}
	written := map[string]bool{"ReasonA": true, "ReasonB": true, "ReasonEndpointUnreachable": true}
	res := &testResults{top: map[string]map[string]outcome{ks: {"TestA": passed, "TestB": failed}}, sub: map[string]outcome{}}

	var out bytes.Buffer
	if rc := report(&out, reasons, hits, written, res); rc != 1 {
		t.Fatalf("exit %d, want 1", rc)
	}
	s := out.String()
	for _, want := range []string{
		"ReasonB: none of its tests passed in this run",
		"keystoneservice.TestB (FAIL)",
		"ReasonEndpointUnreachable in " + ac + ": add a Test* function to " + ac,
		"ReasonGhost: no production code writes it",
		"reasons: 4, fully covered: 1, gaps: 3",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "ReasonA:") {
		t.Errorf("ReasonA is covered but listed:\n%s", s)
	}

	// Without a log, the sources alone decide: only the never-written
	// reason and the missing package remain.
	out.Reset()
	report(&out, reasons, hits, written, nil)
	if s := out.String(); strings.Contains(s, "ReasonB:") || !strings.Contains(s, "gaps: 2") {
		t.Errorf("without results:\n%s", s)
	}
}
