//go:build integration

package image

import (
	"encoding/json"
	"os"
	"testing"
)

// spdxDoc is the part of an SPDX 2.3 JSON document the test reads
// (https://spdx.github.io/spdx-spec/v2.3/).
type spdxDoc struct {
	SPDXVersion string `json:"spdxVersion"`
	Packages    []struct {
		Name         string `json:"name"`
		Version      string `json:"versionInfo"`
		ExternalRefs []struct {
			Type    string `json:"referenceType"`
			Locator string `json:"referenceLocator"`
		} `json:"externalRefs"`
	} `json:"packages"`
}

// checkSBOM checks that the SBOM at path is SPDX 2.3 and names every Go
// module of deps (path@version) with its purl, the two orderhub binaries
// and the pinned ca-certificates package.
func checkSBOM(t *testing.T, path string, deps map[string]bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc spdxDoc
	if err := json.Unmarshal(b, &doc); err != nil || doc.SPDXVersion != "SPDX-2.3" {
		t.Fatalf("SBOM %s: %v, version %q", path, err, doc.SPDXVersion)
	}
	purls := map[string]bool{}
	orderhub := 0
	caVersion := ""
	for _, p := range doc.Packages {
		for _, r := range p.ExternalRefs {
			if r.Type == "purl" {
				purls[r.Locator] = true
			}
		}
		switch p.Name {
		case "orderhub":
			orderhub++
		case "ca-certificates":
			caVersion = p.Version
		}
	}
	if len(deps) == 0 {
		t.Fatal("the binaries record no Go modules")
	}
	for d := range deps {
		if !purls["pkg:golang/"+d] {
			t.Errorf("the SBOM does not name the Go module %s", d)
		}
	}
	if want := toolsEnv(t)["ORDERHUB_CA_CERTIFICATES_VERSION"]; orderhub != 2 || caVersion != want {
		t.Errorf("SBOM: %d orderhub packages (want 2), ca-certificates %q (want %q)", orderhub, caVersion, want)
	}
}
