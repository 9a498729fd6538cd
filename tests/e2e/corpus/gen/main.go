// Command gen renders the admission corpora of package corpus into
// tests/e2e/c5c3/<suite>/ (the upstream c5c3 layout). With --check it writes nothing and exits 1 when a
// generated file is missing or differs, or a suite directory holds a file the
// generator does not produce (an orphan).
//
//	go run ./tests/e2e/corpus/gen [--root tests/e2e/c5c3] [--check]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/c5c3/orderhub/tests/e2e/corpus"
)

func main() {
	root := flag.String("root", corpus.Root, "Directory holding the suite directories.")
	check := flag.Bool("check", false, "Report drift and orphans instead of writing; exit 1 on any.")
	flag.Parse()
	if err := run(*root, *check); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(root string, check bool) error {
	suites := corpus.Suites()
	if check {
		drift, err := corpus.Drift(root, suites, os.ReadFile, listDir)
		if err != nil {
			return err
		}
		for _, d := range drift {
			fmt.Println(d)
		}
		if len(drift) > 0 {
			return fmt.Errorf("%d corpus file(s) drifted: run go run ./tests/e2e/corpus/gen", len(drift))
		}
		return nil
	}
	for _, s := range suites {
		files, err := s.Files()
		if err != nil {
			return err
		}
		dir := filepath.Join(root, s.Dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		// Remove orphans first, so a renumbered table leaves no stale file.
		present, _ := listDir(dir)
		for _, name := range present {
			if _, ok := files[name]; !ok && name != "README.md" {
				if err := os.Remove(filepath.Join(dir, name)); err != nil {
					return err
				}
			}
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				return err
			}
		}
		fmt.Printf("%s: %d fixtures\n", s.Dir, len(s.Fixtures))
	}
	return nil
}

func listDir(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}
