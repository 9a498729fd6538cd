package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// suiteTriple is a condition a chainsaw suite asserts.
type suiteTriple struct {
	t     triple
	suite string // the suite's directory name, the subtest name it runs as
}

// conditionKey is chainsaw's filter key "(conditions[?type == 'X'])".
var conditionKey = regexp.MustCompile(`^\(conditions\[\?\s*type\s*==\s*'([A-Za-z]+)'\s*\]\)$`)

// scanChainsawConditions returns the conditions the chainsaw suites under
// root/tests/e2e assert: every assert step of a chainsaw-test.yaml, inline
// (assert.resource) or in a file beside it (assert.file), whose resource has
// a kind and a status with "(conditions[?type == 'X'])" or "conditions"
// entries carrying status and reason. Error steps (which assert absence)
// are not read.
func scanChainsawConditions(root string) ([]suiteTriple, error) {
	var out []suiteTriple
	base := filepath.Join(root, "tests", "e2e")
	err := filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() || d.Name() != "chainsaw-test.yaml" {
			return nil
		}
		resources, err := assertedResources(path)
		if err != nil {
			return err
		}
		suite := filepath.Base(filepath.Dir(path))
		for _, r := range resources {
			for _, t := range resourceConditions(r) {
				out = append(out, suiteTriple{t: t, suite: suite})
			}
		}
		return nil
	})
	return out, err
}

// assertedResources returns the resources of the assert steps of one
// chainsaw test file.
func assertedResources(path string) ([]map[string]any, error) {
	docs, err := yamlDocs(path)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	var walk func(v any) error
	walk = func(v any) error {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if k == "assert" {
					a, _ := c.(map[string]any)
					if r, ok := a["resource"].(map[string]any); ok {
						out = append(out, r)
					}
					if f, ok := a["file"].(string); ok && !strings.Contains(f, "(") {
						more, err := yamlDocs(filepath.Join(filepath.Dir(path), f))
						if err != nil {
							return err
						}
						out = append(out, more...)
					}
					continue
				}
				if err := walk(c); err != nil {
					return err
				}
			}
		case []any:
			for _, c := range v {
				if err := walk(c); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, d := range docs {
		if err := walk(d); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// yamlDocs decodes the documents of a YAML file.
func yamlDocs(path string) ([]map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(b), -1) {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			return nil, err
		}
		if m != nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// resourceConditions returns the conditions one asserted resource names.
func resourceConditions(r map[string]any) []triple {
	kind, _ := r["kind"].(string)
	status, _ := r["status"].(map[string]any)
	if kind == "" || status == nil {
		return nil
	}
	var out []triple
	add := func(typ string, entries any) {
		list, _ := entries.([]any)
		for _, e := range list {
			m, _ := e.(map[string]any)
			t := typ
			if t == "" {
				t, _ = m["type"].(string)
			}
			st, _ := m["status"].(string)
			reason, _ := m["reason"].(string)
			if t != "" && st != "" && reason != "" {
				out = append(out, triple{Kind: kind, Type: t, Status: st, Reason: reason})
			}
		}
	}
	for k, v := range status {
		if m := conditionKey.FindStringSubmatch(k); m != nil {
			add(m[1], v)
		} else if k == "conditions" {
			add("", v)
		}
	}
	return out
}
