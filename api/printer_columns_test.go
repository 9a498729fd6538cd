package api_test

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// noReadyColumn are the kinds without Ready and Reason columns: no controller
// sets their conditions (README.md, "Try the controllers on the running stack").
var noReadyColumn = map[string]bool{"secretaggregates.c5c3.io": true}

// readyPath reports whether a column's JSONPath reads the field of the Ready
// condition, in either quote style.
func readyPath(path, field string) bool {
	p := strings.ReplaceAll(path, `"`, `'`)
	return p == ".status.conditions[?(@.type=='Ready')]."+field
}

// TestPrinterColumns_ReasonBesideReady fails when a kind lacks the Ready or
// Reason column (the Ready condition's status and reason), and when a c5c3.io
// kind's Reason is not right after Ready at priority 0, where plain kubectl
// get shows it (README.md, "kubectl").
func TestPrinterColumns_ReasonBesideReady(t *testing.T) {
	for _, crd := range loadOurCRDs(t) {
		if noReadyColumn[crd.Name] {
			continue
		}
		for _, v := range crd.Spec.Versions {
			ready, reason := columnIndex(v.AdditionalPrinterColumns, "status"), columnIndex(v.AdditionalPrinterColumns, "reason")
			switch {
			case ready < 0:
				t.Errorf("%s %s: no Ready column", crd.Name, v.Name)
			case reason < 0:
				t.Errorf("%s %s: no Reason column", crd.Name, v.Name)
			case crd.Spec.Group != "c5c3.io":
			case reason != ready+1 || v.AdditionalPrinterColumns[reason].Priority != 0:
				t.Errorf("%s %s: Reason is column %d at priority %d, want column %d (after Ready) at priority 0",
					crd.Name, v.Name, reason, v.AdditionalPrinterColumns[reason].Priority, ready+1)
			}
		}
	}
}

// columnIndex is the index of the column reading the Ready condition's field,
// or -1.
func columnIndex(cols []apiextensionsv1.CustomResourceColumnDefinition, field string) int {
	for i, c := range cols {
		if readyPath(c.JSONPath, field) {
			return i
		}
	}
	return -1
}
