package main

import (
	"fmt"
	"os"
	"sort"

	"sigs.k8s.io/yaml"
)

// remedy is what to check and what to do for one reason (remedies.yaml).
type remedy struct {
	Check  string `json:"check"`
	Remedy string `json:"remedy"`
}

// readRemedies reads remedies.yaml: reason name to remedy, both fields set.
func readRemedies(path string) (map[string]remedy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m map[string]remedy
	if err := yaml.UnmarshalStrict(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for r, v := range m {
		if v.Check == "" || v.Remedy == "" {
			return nil, fmt.Errorf("%s: %s needs both check and remedy", path, r)
		}
	}
	return m, nil
}

// coverage reports the reasons of the tables without a remedy and the
// remedies of no table reason, each sorted.
func coverage(es []entry, rem map[string]remedy) (missing, orphans []string) {
	inTables := map[string]bool{}
	for _, e := range es {
		if !inTables[e.Reason] {
			inTables[e.Reason] = true
			if _, ok := rem[e.Reason]; !ok {
				missing = append(missing, e.Reason)
			}
		}
	}
	for r := range rem {
		if !inTables[r] {
			orphans = append(orphans, r)
		}
	}
	sort.Strings(missing)
	sort.Strings(orphans)
	return missing, orphans
}
