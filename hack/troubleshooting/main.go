// Command troubleshooting writes docs/troubleshooting.md from the condition
// tables of docs/reference/*.md and hack/troubleshooting/remedies.yaml.
// With -check it writes nothing and fails when the page differs. Both fail
// when a table reason has no remedy or a remedy names no table reason.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	root := flag.String("root", ".", "repository root")
	check := flag.Bool("check", false, "fail when docs/troubleshooting.md is stale instead of writing it")
	flag.Parse()
	if err := run(*root, *check); err != nil {
		fmt.Fprintln(os.Stderr, "troubleshooting:", err)
		os.Exit(1)
	}
}

// run generates the page under root and writes or checks it.
func run(root string, check bool) error {
	page, err := generate(root)
	if err != nil {
		return err
	}
	out := filepath.Join(root, "docs", "troubleshooting.md")
	if !check {
		return os.WriteFile(out, []byte(page), 0o644)
	}
	have, err := os.ReadFile(out)
	if err != nil || !bytes.Equal(have, []byte(page)) {
		return errors.New("docs/troubleshooting.md is stale: run 'make manifests' (go run ./hack/troubleshooting) and commit")
	}
	return nil
}

// generate returns the page's text.
func generate(root string) (string, error) {
	es, err := readTables(filepath.Join(root, "docs", "reference"))
	if err != nil {
		return "", err
	}
	rem, err := readRemedies(filepath.Join(root, "hack", "troubleshooting", "remedies.yaml"))
	if err != nil {
		return "", err
	}
	if missing, orphans := coverage(es, rem); len(missing)+len(orphans) > 0 {
		return "", fmt.Errorf("hack/troubleshooting/remedies.yaml: reasons without a remedy: [%s]; remedies of no reason: [%s]",
			strings.Join(missing, " "), strings.Join(orphans, " "))
	}
	return render(es, rem), nil
}
