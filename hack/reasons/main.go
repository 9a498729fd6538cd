// Command reasons prints which live test asserts each condition reason of the
// hub kinds, and exits 1 when a reason has none.
//
// Usage (from the repository root; run by hack/test.sh after the test run):
//
//	go run ./hack/reasons [-conditions api/c5c3/v1alpha1/conditions.go] [-root .] [-results LOG]
//
// The reasons are the constants named Reason* in the conditions file (parsed
// with go/parser, so a reason added there is picked up without editing this
// command).
//
// The convention a test follows to count as the live test of a reason:
//
//   - Go: a top-level test function (Test*, not TestMain) in a file named
//     *_integration_test.go (build tag integration: the tests that run against
//     the real stack) refers to the constant by its selector, for example
//     c5c3v1alpha1.ReasonCatalogFailed, anywhere in its body, closures
//     included: as the argument of a wait helper or in a comparison. A
//     reference in a helper function does not count; the test function
//     itself must name the reason it waits for. Comments do not count (the
//     files are parsed, not grepped).
//   - Chainsaw: a chainsaw-test.yaml under tests/e2e that asserts a condition
//     line "reason: <Value>", where <Value> is the constant's string value.
//     The table names it chainsaw:<suite directory>.
//
// A reason whose comment in the conditions file says it is written on several
// kinds needs only one live test, except the External-mode reasons
// (AuthenticationFailed, CredentialDrift, EndpointUnreachable,
// TLSVerificationFailed, CatalogEndpointMismatch): those must also be asserted
// by a test in controllers/hub/keystoneservice and in
// controllers/hub/keystoneapplicationcredential, because the classification
// is written onto the registrations' and orders' sub-conditions, not only onto
// the ControlPlane (docs/reference/keystoneservice.md, "Conditions";
// docs/reference/keystoneapplicationcredential.md, "Conditions").
//
// A reason that no production Go file names (outside api/ and hack/, test
// files excepted) is marked "never written": no reconciler can report it,
// so no live test can show it; it stays a gap until a reconciler writes it
// or it is removed from the conditions file.
//
// CredentialDrift is not required in controllers/hub/keystoneservice: a
// registration's sub-conditions are classified from K-ORC's messages
// (korc.ClassifyExternal, korc/external.go), and CredentialDrift's rule
// matches only Keystone's 403 on identity:create_application_credential, a
// call no KeystoneService child makes; the registration shows the plane's
// drift as WaitingForAdminCredential instead.
//
// With -results LOG (the `go test -v` log of the run, as hack/test.sh passes
// it), a test counts only if the log shows it passed: a failed, skipped or
// absent test is listed with its outcome and does not cover its reasons. A
// chainsaw suite counts when a subtest named after its directory passed.
// Without -results the table is built from the sources alone (no stack
// needed, no tests run).
//
// Output: one line per reason, "Reason<Name>  <test>, <test>...", then the
// gaps, each with what to add. Exit status: 0 when every reason has a live
// test (and every External-mode reason has one in each required package), 1
// otherwise, 2 on a parse error or an unreadable log.
//
// Per kind (with -results only): every (kind, condition type, status,
// reason) of the condition tables of the docs/reference pages, and every
// event (kind, Normal or Warning, reason) they name (docs.go), counts as live
// only when a test that passed in the log asserted exactly that on an object
// of that kind. A Go test shows it through its wait helper, which calls
// testenv.ObservedCondition or ObservedEvent with what it read once its wait
// held, logging the test's full name (observed.go); a chainsaw suite through
// an assert step naming the kind and the condition
// (chainsawconditions.go), when its subtest passed. The table prints each
// triple with its live tests, then per kind: triples, live, known gaps,
// gaps. A triple with no live test fails the run unless -known-gaps lists
// it with why; an entry no longer documented fails the run too, and one a
// passing test asserted is reported as a note to remove it (kinds.go).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// externalModePackages lists, for each External-mode reason, the package
// directories that must hold a live test of it besides any other.
var externalModePackages = map[string][]string{
	"ReasonAuthenticationFailed":    {"controllers/hub/keystoneservice", "controllers/hub/keystoneapplicationcredential"},
	"ReasonCredentialDrift":         {"controllers/hub/keystoneapplicationcredential"},
	"ReasonEndpointUnreachable":     {"controllers/hub/keystoneservice", "controllers/hub/keystoneapplicationcredential"},
	"ReasonTLSVerificationFailed":   {"controllers/hub/keystoneservice", "controllers/hub/keystoneapplicationcredential"},
	"ReasonCatalogEndpointMismatch": {"controllers/hub/keystoneservice", "controllers/hub/keystoneapplicationcredential"},
}

// reason is one Reason* constant of the conditions file.
type reason struct {
	name  string // Go identifier, e.g. ReasonCatalogFailed
	value string // string value, e.g. CatalogFailed
}

// hit is one live test that asserts a reason.
type hit struct {
	dir  string // package directory relative to the root, or "tests/e2e/<suite>"
	test string // "<pkg>.TestX" or "chainsaw:<suite>"
	fn   string // the Go test function, or the chainsaw suite's directory name
}

// outcome of a hit in the -results log.
type outcome string

const (
	passed  outcome = "PASS"
	failed  outcome = "FAIL"
	skipped outcome = "SKIP"
	notRun  outcome = "not run"
)

func main() {
	conditions := flag.String("conditions", "api/c5c3/v1alpha1/conditions.go", "the Go file declaring the Reason* constants")
	root := flag.String("root", ".", "the repository root to scan for tests")
	results := flag.String("results", "", "a `go test -v` log; when set, only tests it shows passing count")
	reference := flag.String("reference", "docs/reference", "the reference pages whose condition tables and events must be live")
	knownGaps := flag.String("known-gaps", "hack/reasons/known-gaps.txt", "the documented triples known to have no live test yet")
	flag.Parse()

	reasons, err := parseReasons(*conditions)
	if err != nil {
		fmt.Fprintln(os.Stderr, "reasons:", err)
		os.Exit(2)
	}
	byValue := map[string]string{}
	for _, r := range reasons {
		byValue[r.value] = r.name
	}
	hits := map[string][]hit{}
	if err := scanGo(*root, hits); err != nil {
		fmt.Fprintln(os.Stderr, "reasons:", err)
		os.Exit(2)
	}
	if err := scanChainsaw(*root, byValue, hits); err != nil {
		fmt.Fprintln(os.Stderr, "reasons:", err)
		os.Exit(2)
	}
	written, err := scanWriters(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "reasons:", err)
		os.Exit(2)
	}
	var res *testResults
	if *results != "" {
		module, err := modulePath(*root)
		if err != nil {
			fmt.Fprintln(os.Stderr, "reasons:", err)
			os.Exit(2)
		}
		if res, err = parseResults(*results, module); err != nil {
			fmt.Fprintln(os.Stderr, "reasons:", err)
			os.Exit(2)
		}
	}
	rc := report(os.Stdout, reasons, hits, written, res)
	if res == nil {
		fmt.Println("per-kind conditions: not checked (they need -results, the log of a test run)")
		os.Exit(rc)
	}
	if k, err := checkKinds(*root, *reference, *knownGaps, *results, res); err != nil {
		fmt.Fprintln(os.Stderr, "reasons:", err)
		os.Exit(2)
	} else if k > rc {
		rc = k
	}
	os.Exit(rc)
}

// checkKinds reads the reference pages, the observations of the log, the
// chainsaw suites and the known gaps, and prints the per-kind table
// (reportKinds).
func checkKinds(root, reference, knownGaps, results string, res *testResults) (int, error) {
	docs, err := parseReference(filepath.Join(root, reference))
	if err != nil {
		return 2, err
	}
	module, err := modulePath(root)
	if err != nil {
		return 2, err
	}
	obs, err := parseObserved(results, module)
	if err != nil {
		return 2, err
	}
	suites, err := scanChainsawConditions(root)
	if err != nil {
		return 2, err
	}
	known, err := parseKnownGaps(filepath.Join(root, knownGaps))
	if err != nil {
		return 2, err
	}
	suiteOutcome := func(s string) outcome {
		if o, ok := res.sub[s]; ok {
			return o
		}
		return notRun
	}
	fmt.Println()
	return reportKinds(os.Stdout, docs, obs, suites, suiteOutcome, known), nil
}

// modulePath reads the module path from root/go.mod.
func modulePath(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
			return f[1], nil
		}
	}
	return "", fmt.Errorf("go.mod names no module")
}

// testResults are the outcomes of a `go test -v` log: top-level tests per
// package directory, and every subtest by its last name element (for the
// chainsaw suites).
type testResults struct {
	top map[string]map[string]outcome // dir -> TestX -> outcome
	sub map[string]outcome            // last element of a subtest name -> best outcome
}

var (
	resultLine  = regexp.MustCompile(`^(\s*)--- (PASS|FAIL|SKIP): (\S+) \(`)
	packageLine = regexp.MustCompile(`^(ok|FAIL|\?)\s+(\S+)(\s|$)`)
)

// parseResults reads a `go test -v` log. Each package's output is
// contiguous and ends with its "ok <import path>" or "FAIL <import path>"
// line, which assigns the top-level results read since the previous one.
func parseResults(path, module string) (*testResults, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r := &testResults{top: map[string]map[string]outcome{}, sub: map[string]outcome{}}
	pending := map[string]outcome{}
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if m := resultLine.FindStringSubmatch(line); m != nil {
			name, o := m[3], outcome(m[2])
			if i := strings.LastIndex(name, "/"); i >= 0 {
				if last := name[i+1:]; r.sub[last] != passed {
					r.sub[last] = o
				}
				continue
			}
			pending[name] = o
			continue
		}
		if m := packageLine.FindStringSubmatch(line); m != nil && (m[2] == module || strings.HasPrefix(m[2], module+"/")) {
			dir := strings.TrimPrefix(strings.TrimPrefix(m[2], module), "/")
			if dir == "" {
				dir = "."
			}
			if r.top[dir] == nil {
				r.top[dir] = map[string]outcome{}
			}
			for n, o := range pending {
				r.top[dir][n] = o
			}
			pending = map[string]outcome{}
		}
	}
	return r, sc.Err()
}

// of is h's outcome in the log.
func (r *testResults) of(h hit) outcome {
	if strings.HasPrefix(h.test, "chainsaw:") {
		if o, ok := r.sub[h.fn]; ok {
			return o
		}
		return notRun
	}
	if o, ok := r.top[h.dir][h.fn]; ok {
		return o
	}
	return notRun
}

// scanWriters returns the Reason* selectors named by the production Go files
// under root (not tests, not api/, not hack/).
func scanWriters(root string) (map[string]bool, error) {
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "bin" || n == "vendor" || rel == "api" || rel == "hack") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Reason") {
				out[sel.Sel.Name] = true
			}
			return true
		})
		return nil
	})
	return out, err
}

// parseReasons returns the Reason* string constants of file, in file order.
func parseReasons(file string) ([]reason, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		return nil, err
	}
	var out []reason
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, "Reason") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					return nil, err
				}
				out = append(out, reason{name: n.Name, value: v})
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s declares no Reason* constants", file)
	}
	return out, nil
}

// scanGo records, for every Test* function (TestMain excepted) in every
// *_integration_test.go file under root, each Reason* selector its body names.
func scanGo(root string, hits map[string][]hit) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "bin" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_integration_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" {
				continue
			}
			seen := map[string]bool{}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || !strings.HasPrefix(sel.Sel.Name, "Reason") || seen[sel.Sel.Name] {
					return true
				}
				seen[sel.Sel.Name] = true
				hits[sel.Sel.Name] = append(hits[sel.Sel.Name], hit{dir: dir, test: f.Name.Name + "." + fn.Name.Name, fn: fn.Name.Name})
				return true
			})
		}
		return nil
	})
}

var chainsawReason = regexp.MustCompile(`^\s*-?\s*reason:\s*"?([A-Za-z]+)"?\s*$`)

// scanChainsaw records each "reason: <Value>" line of the chainsaw suites
// under root/tests/e2e.
func scanChainsaw(root string, byValue map[string]string, hits map[string][]hit) error {
	base := filepath.Join(root, "tests", "e2e")
	return filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() || d.Name() != "chainsaw-test.yaml" {
			return nil
		}
		suiteDir, _ := filepath.Rel(root, filepath.Dir(path))
		suite, _ := filepath.Rel(base, filepath.Dir(path))
		fh, err := os.Open(path)
		if err != nil {
			return err
		}
		defer fh.Close()
		seen := map[string]bool{}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			m := chainsawReason.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			name, ok := byValue[m[1]]
			if !ok || seen[name] {
				continue
			}
			seen[name] = true
			hits[name] = append(hits[name], hit{dir: filepath.ToSlash(suiteDir), test: "chainsaw:" + filepath.ToSlash(suite),
				fn: filepath.Base(suiteDir)})
		}
		return sc.Err()
	})
}

// gap is a reason (or a reason in a required package) without a live
// test, and what to add.
type gap struct {
	reason string
	dir    string // the package that lacks it; "" for the reason as a whole
	what   string
}

// report prints the table and the gaps, and returns the exit status. With
// res, a test that did not pass in the log does not count.
func report(w io.Writer, reasons []reason, hits map[string][]hit, written map[string]bool, res *testResults) int {
	width := 0
	for _, r := range reasons {
		if len(r.name) > width {
			width = len(r.name)
		}
	}
	var gaps []gap
	fmt.Fprintf(w, "condition reasons (api/c5c3/v1alpha1/conditions.go) -> live tests\n")
	for _, r := range reasons {
		var live []hit
		var cells []string
		for _, h := range hits[r.name] {
			cell := h.test
			if res != nil {
				if o := res.of(h); o != passed {
					cell += " (" + string(o) + ")"
				} else {
					live = append(live, h)
				}
			} else {
				live = append(live, h)
			}
			cells = append(cells, cell)
		}
		sort.Strings(cells)
		cell := strings.Join(cells, ", ")
		if len(live) == 0 {
			g := gap{reason: r.name}
			switch {
			case !written[r.name]:
				g.what = "no production code writes it: make a reconciler write it, or remove it from api/c5c3/v1alpha1/conditions.go"
			case len(hits[r.name]) > 0:
				g.what = "none of its tests passed in this run: fix them"
			default:
				g.what = fmt.Sprintf("add a Test* function to a *_integration_test.go file (build tag integration) that causes it on the real stack "+
					"and waits for c5c3v1alpha1.%s, or a chainsaw suite under tests/e2e that asserts \"reason: %s\"", r.name, r.value)
			}
			if cell == "" {
				cell = "-- MISSING"
			} else {
				cell += "  -- MISSING (none passed)"
			}
			if !written[r.name] {
				cell += " (never written: no production code names it)"
			}
			gaps = append(gaps, g)
		}
		for _, dir := range externalModePackages[r.name] {
			if !hasDir(live, dir) {
				cell += "  -- MISSING in " + dir
				gaps = append(gaps, gap{reason: r.name, dir: dir, what: fmt.Sprintf(
					"add a Test* function to %s/*_integration_test.go that makes K-ORC fail against an External-mode plane "+
						"and waits for c5c3v1alpha1.%s on the %s's sub-condition", dir, r.name, kindOf(dir))})
			}
		}
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.name, cell)
	}
	distinct := map[string]bool{}
	for _, g := range gaps {
		distinct[g.reason] = true
	}
	fmt.Fprintf(w, "reasons: %d, fully covered: %d, gaps: %d\n", len(reasons), len(reasons)-len(distinct), len(gaps))
	if len(gaps) > 0 {
		fmt.Fprintf(w, "FAIL: condition reasons without a live test (convention: hack/reasons/main.go):\n")
		for _, g := range gaps {
			where := ""
			if g.dir != "" {
				where = " in " + g.dir
			}
			fmt.Fprintf(w, "  %s%s: %s\n", g.reason, where, g.what)
		}
		return 1
	}
	return 0
}

// kindOf names the kind a controller package reconciles, for messages.
func kindOf(dir string) string {
	switch filepath.Base(dir) {
	case "keystoneservice":
		return "KeystoneService"
	case "keystoneapplicationcredential":
		return "KeystoneApplicationCredential"
	}
	return filepath.Base(dir)
}

func hasDir(hs []hit, dir string) bool {
	for _, h := range hs {
		if h.dir == dir {
			return true
		}
	}
	return false
}
