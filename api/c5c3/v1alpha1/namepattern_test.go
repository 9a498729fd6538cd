package v1alpha1

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestNamePattern: every printable name without a comma matches
// NamePattern; a comma, a control character or a bidirectional control does
// not.
func TestNamePattern(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(NamePattern)
	for _, ok := range []string{"Default", "tenant-dom", "TENANT-DOM", "svc user", "Jürgen Müller", "用户", "proj_1.example@x", "emoji😀",
		"\u00a0nbsp", "zero\u200bwidth", "arabic\u0627"} {
		if !re.MatchString(ok) {
			t.Errorf("NamePattern refuses the printable name %q", ok)
		}
	}
	for _, bad := range []string{"", "a,b", "nul\x00", "tab\t", "nl\n", "del\x7f", "c1\u0085", "alm\u061c", "lrm\u200e", "rlm\u200f",
		"lre\u202a", "rle\u202b", "pdf\u202c", "lro\u202d", "rlo\u202e", "lri\u2066", "rli\u2067", "fsi\u2068", "pdi\u2069"} {
		if re.MatchString(bad) {
			t.Errorf("NamePattern admits %q", bad)
		}
	}
}

// TestNamePatternInCRDs: the generated CRDs carry NamePattern (the
// kubebuilder markers repeat it literally).
func TestNamePatternInCRDs(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"c5c3.io_keystoneusers.yaml", "c5c3.io_keystoneprojects.yaml", "c5c3.io_keystoneroleassignments.yaml",
		"c5c3.io_controlplanes.yaml", "c5c3.io_keystoneservices.yaml"} {
		b, err := os.ReadFile("../../../config/crd/bases/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "pattern: "+NamePattern) {
			t.Errorf("%s has no name field with pattern %s", f, NamePattern)
		}
	}
}
