package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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

func TestParseReference(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "widget.md"), []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	// A page without a Kind row is not read.
	if err := os.WriteFile(filepath.Join(dir, "guide.md"), []byte("| Type | Status | Reason |\n|---|---|---|\n| a | b | c |\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := parseReference(dir)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, tr := range got {
		s = append(s, tr.String())
	}
	want := []string{
		"Widget CredentialReady False Gone", "Widget CredentialReady False NotFound", "Widget CredentialReady True Minted",
		"Widget DeliveryReady False Gone", "Widget DeliveryReady False NotFound", "Widget DeliveryReady False Refused",
		"Widget Ready True AllReady", "Widget event Normal Deferred", "Widget event Warning Revoked",
	}
	if strings.Join(s, "\n") != strings.Join(want, "\n") {
		t.Errorf("triples:\n%s\nwant:\n%s", strings.Join(s, "\n"), strings.Join(want, "\n"))
	}

	// A row that is not | Type | True/False | Reason | is an error, naming the line.
	bad := strings.Replace(page, "| Ready | True | AllReady |", "| Ready | Maybe | AllReady |", 1)
	if err := os.WriteFile(filepath.Join(dir, "widget.md"), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := parseReference(dir); err == nil || !strings.Contains(err.Error(), "widget.md:12") {
		t.Errorf("bad row: %v", err)
	}
}

// Observations count with the outcome of the test, subtest included, that
// logged them, in the package whose result line follows; the lines are
// found behind t.Logf's prefix and in interleaved parallel output.
const observedLog = `=== RUN   TestA
=== RUN   TestA/sub
    a_integration_test.go:10: reasons-observed: condition TestA/sub Widget CredentialReady True Minted
=== NAME  TestB
    b_integration_test.go:20: reasons-observed: condition TestB Widget DeliveryReady False Refused
    --- PASS: TestA/sub (1.00s)
--- PASS: TestA (1.00s)
    b_integration_test.go:21: reasons-observed: event TestB Widget Warning Revoked
--- FAIL: TestB (2.00s)
FAIL
FAIL	example.com/m/controllers/hub/widget	3.1s
    c_integration_test.go:5: reasons-observed: condition TestC Widget Ready True AllReady
ok  	example.com/m/controllers/hub/other	1.0s
`

func TestParseObserved(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(p, []byte(observedLog), 0o600); err != nil {
		t.Fatal(err)
	}
	obs, err := parseObserved(p, "example.com/m")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range obs {
		got = append(got, fmt.Sprintf("%s %s %s %s", o.dir, o.test, o.t, o.outcome))
	}
	want := []string{
		"controllers/hub/widget TestA/sub Widget CredentialReady True Minted PASS",
		"controllers/hub/widget TestB Widget DeliveryReady False Refused FAIL",
		"controllers/hub/widget TestB Widget event Warning Revoked FAIL",
		"controllers/hub/other TestC Widget Ready True AllReady not run",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("observations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A chainsaw suite's assert steps, inline and from a file beside it, name
// kind, type, status and reason; error steps do not count.
func TestScanChainsawConditions(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "tests", "e2e", "c5c3", "widget")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	suite := `apiVersion: chainsaw.kyverno.io/v1alpha1
kind: Test
spec:
  steps:
  - try:
    - assert:
        resource:
          apiVersion: c5c3.io/v1alpha1
          kind: Widget
          status:
            (conditions[?type == 'CredentialReady']):
            - status: "True"
              reason: Minted
    - assert:
        file: held.yaml
    - error:
        resource:
          kind: Widget
          status:
            conditions:
            - type: Ready
              status: "True"
              reason: Never
`
	held := "apiVersion: c5c3.io/v1alpha1\nkind: Widget\nstatus:\n  conditions:\n  - type: DeliveryReady\n    status: \"False\"\n    reason: Refused\n"
	for name, body := range map[string]string{"chainsaw-test.yaml": suite, "held.yaml": held} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := scanChainsawConditions(root)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, st := range got {
		s = append(s, st.suite+": "+st.t.String())
	}
	sort.Strings(s)
	want := []string{"widget: Widget CredentialReady True Minted", "widget: Widget DeliveryReady False Refused"}
	if strings.Join(s, "\n") != strings.Join(want, "\n") {
		t.Errorf("chainsaw:\n%s\nwant:\n%s", strings.Join(s, "\n"), strings.Join(want, "\n"))
	}
}

// The per-kind report: a triple is live only through a passing test that
// observed it on its kind; a gap fails unless it is a known gap; a known
// gap that is live or no longer documented fails too.
func TestReportKinds(t *testing.T) {
	minted := triple{"Widget", "CredentialReady", "True", "Minted"}
	refused := triple{"Widget", "DeliveryReady", "False", "Refused"}
	revoked := triple{"Widget", eventType, "Warning", "Revoked"}
	docs := []triple{minted, refused, revoked}
	obs := []observation{
		{t: minted, dir: "w", test: "TestA", outcome: passed},
		// The reason observed on another kind does not count.
		{t: triple{"Gadget", "DeliveryReady", "False", "Refused"}, dir: "g", test: "TestG", outcome: passed},
		{t: refused, dir: "w", test: "TestB", outcome: failed},
	}
	chainsaw := []suiteTriple{{t: revoked, suite: "widget"}}
	outcomes := func(s string) outcome { return map[string]outcome{"widget": passed}[s] }

	var out bytes.Buffer
	if rc := reportKinds(&out, docs, obs, chainsaw, outcomes, nil); rc != 1 {
		t.Errorf("exit %d with a gap, want 1", rc)
	}
	for _, want := range []string{"w.TestA", "chainsaw:widget", "w.TestB (FAIL)  -- GAP",
		"Widget DeliveryReady False Refused: no passing test asserts it", "Widget                                  3      2            0      1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	known := []knownGap{{t: refused, why: "needs a foreign Secret test", line: 1}}
	if rc := reportKinds(&out, docs, obs, chainsaw, outcomes, known); rc != 0 {
		t.Errorf("exit %d with the gap known, want 0:\n%s", rc, out.String())
	}
	if !strings.Contains(out.String(), "KNOWN GAP: needs a foreign Secret test") {
		t.Errorf("the known gap is not shown:\n%s", out.String())
	}

	out.Reset()
	// A known gap seen live is a note, not a failure: a short-lived state
	// can be seen in one run and not the next.
	if rc := reportKinds(&out, docs, obs, chainsaw, outcomes, append(known, knownGap{t: minted, why: "stale", line: 2})); rc != 0 {
		t.Errorf("exit %d with a known gap seen live, want 0:\n%s", rc, out.String())
	}
	out.Reset()
	known = append(known, knownGap{t: minted, why: "stale", line: 2}, knownGap{t: triple{"Widget", "Ready", "True", "Gone"}, why: "x", line: 3})
	if rc := reportKinds(&out, docs, obs, chainsaw, outcomes, known); rc != 1 {
		t.Errorf("exit %d with a known gap no longer documented, want 1", rc)
	}
	for _, want := range []string{"NOTE: known gap Widget CredentialReady True Minted (line 2) is live now", "Widget Ready True Gone (line 3) is no longer listed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestParseKnownGaps(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gaps")
	body := "# comment\n\nWidget DeliveryReady False Refused no test makes a foreign Secret\n"
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := parseKnownGaps(p)
	if err != nil || len(got) != 1 || got[0].t.String() != "Widget DeliveryReady False Refused" ||
		got[0].why != "no test makes a foreign Secret" || got[0].line != 3 {
		t.Errorf("got %+v, %v", got, err)
	}
	if err := os.WriteFile(p, []byte("Widget DeliveryReady False Refused\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := parseKnownGaps(p); err == nil {
		t.Error("a line without a why is accepted")
	}
}
