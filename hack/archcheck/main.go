// Command archcheck fails when the "Packages" section of
// docs/architecture.md and the module's packages disagree: a package without
// a section, a section naming no package, or an import of the module that
// the package's "May import" list does not name (run by `make vet`).
//
// Usage: go run ./hack/archcheck [-doc docs/architecture.md]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
)

const module = "github.com/c5c3/orderhub"

// exempt are the packages the page covers together, not one section each
// (its "Commands under hack/ and tests/" paragraph and the test-only
// trees), and whose imports the page leaves free.
var exempt = regexp.MustCompile(`^(hack|tests)(/|$)`)

func main() {
	doc := flag.String("doc", "docs/architecture.md", "the architecture page")
	flag.Parse()
	f, err := os.Open(*doc)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	sections, err := parseSections(f)
	_ = f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{len .GoFiles}}|{{join .Imports ","}}`, "./...").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go list:", err)
		os.Exit(2)
	}
	if problems := check(sections, parseImports(string(out))); len(problems) > 0 {
		fmt.Printf("%s disagrees with the code (fix the page or the import):\n", *doc)
		for _, p := range problems {
			fmt.Println("  " + p)
		}
		os.Exit(1)
	}
}

var (
	heading = regexp.MustCompile("^### `([^`]+)`$")
	quoted  = regexp.MustCompile("`([^`]+)`")
)

// parseSections reads the "## Packages" section of the page: for each
// "### `pkg`" heading the module packages its "May import:" sentence names
// (none for "nothing of the module").
func parseSections(r io.Reader) (map[string][]string, error) {
	sections := map[string][]string{}
	in, cur, text := false, "", ""
	flush := func() {
		if cur == "" {
			return
		}
		may := ""
		if i := strings.Index(text, "May import:"); i >= 0 {
			may = text[i+len("May import:"):]
			if j := strings.Index(may, "."); j >= 0 && !strings.Contains(may[:j], "`") {
				may = may[:j]
			}
		}
		var list []string
		for _, m := range quoted.FindAllStringSubmatch(may, -1) {
			list = append(list, m[1])
		}
		sections[cur] = list
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			flush()
			cur, text = "", ""
			in = line == "## Packages"
		case !in:
		case strings.HasPrefix(line, "### "):
			flush()
			cur, text = "", ""
			if m := heading.FindStringSubmatch(line); m != nil {
				cur = m[1]
			}
		default:
			text += " " + line
		}
	}
	flush()
	if len(sections) == 0 {
		return nil, fmt.Errorf("no package sections under \"## Packages\"")
	}
	return sections, sc.Err()
}

// parseImports maps each package of `go list` output (path|Go files|imports)
// to its imports within the module, both relative to the module root. A
// package of test files only is left out: tests may import anything.
func parseImports(out string) map[string][]string {
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		path, rest, _ := strings.Cut(line, "|")
		files, imports, _ := strings.Cut(rest, "|")
		if files == "0" {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
		var own []string
		for _, imp := range strings.Split(imports, ",") {
			if strings.HasPrefix(imp, module+"/") {
				own = append(own, strings.TrimPrefix(imp, module+"/"))
			}
		}
		pkgs[rel] = own
	}
	return pkgs
}

// check lists every disagreement between sections and pkgs, sorted.
func check(sections, pkgs map[string][]string) []string {
	var problems []string
	for pkg, imports := range pkgs {
		if exempt.MatchString(pkg) {
			continue
		}
		allowed, ok := sections[pkg]
		if !ok {
			problems = append(problems, fmt.Sprintf("package %s has no section", pkg))
			continue
		}
		may := map[string]bool{}
		for _, a := range allowed {
			may[a] = true
		}
		for _, imp := range imports {
			if !may[imp] {
				problems = append(problems, fmt.Sprintf("%s imports %s, which its \"May import\" list does not name", pkg, imp))
			}
		}
	}
	for pkg := range sections {
		if _, ok := pkgs[pkg]; !ok {
			problems = append(problems, fmt.Sprintf("section %s names no package", pkg))
		}
	}
	sort.Strings(problems)
	return problems
}
