// Command image builds the orderhub image index that make image ships
// (hack/image.sh drives it): one image per platform, each a single layer on
// an empty base, gathered in an OCI image index written as an OCI image
// layout tarball, and an SPDX 2.3 SBOM of the binaries beside it.
//
//	go run . -version V -image REPO -out TAR -ca BUNDLE -ca-version VER -ca-sha256 SUM \
//	    -bin linux/amd64=PATH -bin linux/arm64=PATH
//
// It writes TAR (OCI layout: oci-layout, index.json naming REPO:V through
// the annotations io.containerd.image.name and org.opencontainers.image.ref.name,
// blobs/sha256/...), TAR.digest (the index digest, sha256:<hex>), TAR.ref
// (REPO:V) and TAR.spdx.json. The layout format is
// https://github.com/opencontainers/image-spec/blob/main/image-layout.md;
// go-containerregistry (github.com/google/go-containerregistry/pkg/v1/layout,
// mutate) writes it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// binFlags collects -bin os/arch=path, in order.
type binFlags []binary

// binary is one platform's static orderhub binary.
type binary struct {
	OS, Arch, Path string
}

func (b *binFlags) String() string { return fmt.Sprint(*b) }

func (b *binFlags) Set(v string) error {
	plat, path, ok := strings.Cut(v, "=")
	osName, arch, ok2 := strings.Cut(plat, "/")
	if !ok || !ok2 || path == "" {
		return fmt.Errorf("want os/arch=path, got %q", v)
	}
	*b = append(*b, binary{OS: osName, Arch: arch, Path: path})
	return nil
}

// options are the command's flags.
type options struct {
	Version, Commit, Image, Out string
	CA                          caPackage
	Bins                        binFlags
}

func main() {
	var o options
	flag.StringVar(&o.Version, "version", "", "image tag and org.opencontainers.image.version")
	flag.StringVar(&o.Commit, "commit", "", "org.opencontainers.image.revision")
	flag.StringVar(&o.Image, "image", "", "image repository, e.g. localhost/orderhub")
	flag.StringVar(&o.Out, "out", "", "the OCI layout tarball to write")
	flag.StringVar(&o.CA.Bundle, "ca", "", "the CA bundle file, from the pinned Debian ca-certificates package")
	flag.StringVar(&o.CA.Version, "ca-version", "", "that package's Debian version")
	flag.StringVar(&o.CA.DebSHA256, "ca-sha256", "", "that package's .deb SHA-256")
	flag.Var(&o.Bins, "bin", "os/arch=path of a static orderhub binary (repeat per platform)")
	flag.Parse()
	if o.Version == "" || o.Image == "" || o.Out == "" || o.CA.Bundle == "" || o.CA.Version == "" || len(o.Bins) == 0 {
		fmt.Fprintln(os.Stderr, "image: -version, -image, -out, -ca, -ca-version and at least one -bin are required")
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

// run builds the index, writes the layout tarball, its digest and ref, and
// the SBOM.
func run(o options) error {
	idx, err := buildIndex(o)
	if err != nil {
		return err
	}
	digest, err := writeLayout(idx, o.Out, o.Image+":"+o.Version, o.Version)
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.Out+".digest", []byte(digest+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(o.Out+".ref", []byte(o.Image+":"+o.Version+"\n"), 0o644); err != nil {
		return err
	}
	if err := printSizes(idx); err != nil {
		return err
	}
	doc, err := buildSBOM(o, digest)
	if err != nil {
		return err
	}
	return writeSBOM(doc, o.Out+".spdx.json")
}

// printSizes prints each platform's image size: the compressed layer a
// node pulls and the uncompressed size it unpacks to, in MiB.
func printSizes(idx v1.ImageIndex) error {
	m, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	for _, d := range m.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			return err
		}
		layers, err := img.Layers()
		if err != nil {
			return err
		}
		var compressed, unpacked int64
		for _, l := range layers {
			c, err := l.Size()
			if err != nil {
				return err
			}
			rc, err := l.Uncompressed()
			if err != nil {
				return err
			}
			n, err := io.Copy(io.Discard, rc)
			rc.Close()
			if err != nil {
				return err
			}
			compressed, unpacked = compressed+c, unpacked+n
		}
		fmt.Printf("%s/%s: %.1f MiB compressed, %.1f MiB unpacked\n", d.Platform.OS, d.Platform.Architecture,
			float64(compressed)/(1<<20), float64(unpacked)/(1<<20))
	}
	return nil
}
