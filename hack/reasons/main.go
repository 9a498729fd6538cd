// Command reasons prints which live test asserts each condition reason of the
// hub kinds, and exits 1 when a reason has none.
//
// Usage (from the repository root; run by hack/test.sh after the test run):
//
//	go run ./hack/reasons [-conditions api/c5c3/v1alpha1/conditions.go] [-root .]
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
// Output: one line per reason, "Reason<Name>  <test>, <test>...", then the
// missing ones. Exit status: 0 when every reason has a live test (and every
// External-mode reason has one in each required package), 1 otherwise, 2 on a
// parse error.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
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
	"ReasonCredentialDrift":         {"controllers/hub/keystoneservice", "controllers/hub/keystoneapplicationcredential"},
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
}

func main() {
	conditions := flag.String("conditions", "api/c5c3/v1alpha1/conditions.go", "the Go file declaring the Reason* constants")
	root := flag.String("root", ".", "the repository root to scan for tests")
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
	os.Exit(report(os.Stdout, reasons, hits, written))
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
				hits[sel.Sel.Name] = append(hits[sel.Sel.Name], hit{dir: dir, test: f.Name.Name + "." + fn.Name.Name})
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
			hits[name] = append(hits[name], hit{dir: filepath.ToSlash(suiteDir), test: "chainsaw:" + filepath.ToSlash(suite)})
		}
		return sc.Err()
	})
}

// report prints the table and the gaps, and returns the exit status.
func report(w *os.File, reasons []reason, hits map[string][]hit, written map[string]bool) int {
	width := 0
	for _, r := range reasons {
		if len(r.name) > width {
			width = len(r.name)
		}
	}
	var missing []string
	fmt.Fprintf(w, "condition reasons (api/c5c3/v1alpha1/conditions.go) -> live tests\n")
	for _, r := range reasons {
		hs := hits[r.name]
		tests := make([]string, 0, len(hs))
		for _, h := range hs {
			tests = append(tests, h.test)
		}
		sort.Strings(tests)
		cell := strings.Join(tests, ", ")
		if cell == "" {
			cell = "-- MISSING"
			entry := r.name
			if !written[r.name] {
				cell += " (never written: no production code names it)"
				entry += " (never written)"
			}
			missing = append(missing, entry)
		}
		for _, dir := range externalModePackages[r.name] {
			if !hasDir(hs, dir) {
				cell += "  -- MISSING in " + dir
				missing = append(missing, r.name+" ("+dir+")")
			}
		}
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.name, cell)
	}
	fmt.Fprintf(w, "reasons: %d, fully covered: %d, gaps: %d\n", len(reasons), len(reasons)-countDistinct(missing), len(missing))
	if len(missing) > 0 {
		fmt.Fprintf(w, "no live test (see hack/reasons/main.go for the convention):\n")
		for _, m := range missing {
			fmt.Fprintf(w, "  %s\n", m)
		}
		return 1
	}
	return 0
}

func hasDir(hs []hit, dir string) bool {
	for _, h := range hs {
		if h.dir == dir {
			return true
		}
	}
	return false
}

// countDistinct counts the reasons among missing entries, an entry of the
// form "Name (dir)" counting as Name.
func countDistinct(missing []string) int {
	seen := map[string]bool{}
	for _, m := range missing {
		seen[strings.SplitN(m, " ", 2)[0]] = true
	}
	return len(seen)
}
