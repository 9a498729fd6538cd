package main

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	spdxjson "github.com/spdx/tools-golang/json"
	"github.com/spdx/tools-golang/spdx"
	"github.com/spdx/tools-golang/spdx/v2/common"
)

// caPackage is the pinned Debian ca-certificates package the CA bundle comes
// from.
type caPackage struct {
	Bundle, Version, DebSHA256 string
}

var nonID = regexp.MustCompile(`[^A-Za-z0-9.-]+`)

// spdxID turns s into an SPDX element id (letters, digits, '.', '-').
func spdxID(s string) common.ElementID {
	return common.ElementID(nonID.ReplaceAllString(s, "-"))
}

// buildSBOM returns an SPDX 2.3 document describing the image index digest:
// per platform the orderhub binary, and each Go module the binaries'
// debug/buildinfo records (path, version, purl pkg:golang) as a package it
// depends on; and the Debian ca-certificates package (purl pkg:deb) the CA
// bundle comes from. Spec: https://spdx.github.io/spdx-spec/v2.3/.
func buildSBOM(o options, digest string) (*spdx.Document, error) {
	doc := &spdx.Document{SPDXVersion: spdx.Version, DataLicense: spdx.DataLicense, SPDXIdentifier: "DOCUMENT",
		DocumentName:      o.Image + "@" + digest,
		DocumentNamespace: "https://github.com/c5c3/orderhub/spdx/" + o.Version + "/" + strings.TrimPrefix(digest, "sha256:"),
		CreationInfo: &spdx.CreationInfo{Created: time.Now().UTC().Format(time.RFC3339),
			Creators: []common.Creator{{CreatorType: "Tool", Creator: "orderhub-hack-image"}}}}
	mods := map[common.ElementID]bool{}
	for _, b := range o.Bins {
		bi, err := buildinfo.ReadFile(b.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Path, err)
		}
		main := &spdx.Package{PackageName: "orderhub", PackageSPDXIdentifier: spdxID("orderhub-" + b.OS + "-" + b.Arch),
			PackageVersion: o.Version, PackageDownloadLocation: "https://github.com/c5c3/orderhub",
			PrimaryPackagePurpose: "APPLICATION", PackageLicenseConcluded: "Apache-2.0", PackageLicenseDeclared: "Apache-2.0",
			PackageCopyrightText: "NOASSERTION", PackageComment: fmt.Sprintf("/orderhub of the %s/%s image; %s, module %s",
				b.OS, b.Arch, bi.GoVersion, bi.Main.Path)}
		doc.Packages = append(doc.Packages, main)
		doc.Relationships = append(doc.Relationships, relate("DOCUMENT", main.PackageSPDXIdentifier, "DESCRIBES"))
		for _, m := range bi.Deps {
			if m.Replace != nil {
				m = m.Replace
			}
			id := spdxID("go-" + m.Path + "-" + m.Version)
			if !mods[id] {
				mods[id] = true
				doc.Packages = append(doc.Packages, goModule(id, m.Path, m.Version))
			}
			doc.Relationships = append(doc.Relationships, relate(main.PackageSPDXIdentifier, id, "DEPENDS_ON"))
		}
	}
	ca := debPackage(o.CA)
	doc.Packages = append(doc.Packages, ca)
	doc.Relationships = append(doc.Relationships, relate("DOCUMENT", ca.PackageSPDXIdentifier, "DESCRIBES"))
	return doc, nil
}

// goModule is the SPDX package of one Go module.
func goModule(id common.ElementID, path, version string) *spdx.Package {
	return &spdx.Package{PackageName: path, PackageSPDXIdentifier: id, PackageVersion: version,
		PackageDownloadLocation: "NOASSERTION", PrimaryPackagePurpose: "LIBRARY",
		PackageLicenseConcluded: "NOASSERTION", PackageLicenseDeclared: "NOASSERTION", PackageCopyrightText: "NOASSERTION",
		PackageExternalReferences: []*spdx.PackageExternalReference{{Category: "PACKAGE-MANAGER", RefType: "purl",
			Locator: "pkg:golang/" + path + "@" + version}}}
}

// debPackage is the SPDX package of the pinned ca-certificates .deb.
func debPackage(c caPackage) *spdx.Package {
	p := &spdx.Package{PackageName: "ca-certificates", PackageSPDXIdentifier: "debian-ca-certificates",
		PackageVersion: c.Version, PackageDownloadLocation: "NOASSERTION", PrimaryPackagePurpose: "FILE",
		PackageLicenseConcluded: "NOASSERTION", PackageLicenseDeclared: "NOASSERTION", PackageCopyrightText: "NOASSERTION",
		PackageComment: "/etc/ssl/certs/ca-certificates.crt: the Mozilla certificates of this package, concatenated",
		PackageExternalReferences: []*spdx.PackageExternalReference{{Category: "PACKAGE-MANAGER", RefType: "purl",
			Locator: "pkg:deb/debian/ca-certificates@" + c.Version + "?arch=all"}}}
	if c.DebSHA256 != "" {
		p.PackageChecksums = []common.Checksum{{Algorithm: common.SHA256, Value: c.DebSHA256}}
	}
	return p
}

func relate(a, b common.ElementID, kind string) *spdx.Relationship {
	return &spdx.Relationship{RefA: common.DocElementID{ElementRefID: a}, RefB: common.DocElementID{ElementRefID: b},
		Relationship: kind}
}

// writeSBOM writes doc as indented SPDX JSON to path.
func writeSBOM(doc *spdx.Document, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := spdxjson.Write(doc, f, spdxjson.Indent("  ")); err != nil {
		return err
	}
	return f.Close()
}
