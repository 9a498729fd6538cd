//go:build integration

// Package image builds the image index the way `make image` does
// (hack/image.sh) and checks it from outside: the OCI layout and its index,
// each platform's config and binary, the SBOM beside it, and a pod on the
// local node (docs/local-stack.md) running the imported image by digest.
package image

import (
	"bytes"
	"debug/buildinfo"
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/c5c3/orderhub/internal/testenv"
)

const (
	repository = "localhost/orderhub"
	version    = "v0.0.0-imagetest"
	nonroot    = "65532:65532"
)

// wantMachine is the ELF machine of each platform's binary.
var wantMachine = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

// buildIndex runs hack/image.sh into a temporary folder and returns the
// tarball's path.
func buildIndex(t *testing.T) string {
	t.Helper()
	repo, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "orderhub-image.tar")
	cmd := exec.Command(filepath.Join(repo, "hack", "image.sh"), version, repository, out)
	cmd.Dir = repo
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		t.Fatalf("hack/image.sh: %v\n%s", err, log.String())
	}
	t.Log(strings.TrimSpace(log.String()))
	return out
}

// The index names both platforms; each image's config says its platform,
// user 65532 and entrypoint /orderhub; its layer holds a static binary of
// that architecture, the pinned Debian CA bundle and the nonroot user; the
// SBOM names every Go module of the binaries and the ca-certificates
// package; the node imports the index and runs the image by its digest as
// a non-root user.
func TestImage_IndexPlatformsSBOMAndNode(t *testing.T) {
	out := buildIndex(t)
	digestFile, err := os.ReadFile(out + ".digest")
	if err != nil {
		t.Fatal(err)
	}
	digest := strings.TrimSpace(string(digestFile))
	deps := checkLayout(t, readLayout(t, out), digest)
	checkSBOM(t, out+".spdx.json", deps)
	runOnNode(t, out, repository+"@"+digest)
}

// checkLayout checks the layout and returns the Go modules
// (path@version) of the binaries.
func checkLayout(t *testing.T, l ociLayout, digest string) map[string]bool {
	var top index
	if err := json.Unmarshal(l["index.json"], &top); err != nil || len(top.Manifests) != 1 {
		t.Fatalf("index.json: %v, %+v", err, top)
	}
	if d := top.Manifests[0]; d.Digest != digest || d.MediaType != "application/vnd.oci.image.index.v1+json" ||
		d.Annotations["io.containerd.image.name"] != repository+":"+version {
		t.Fatalf("index.json names %+v, want the index %s named %s:%s", d, digest, repository, version)
	}
	var idx index
	l.decode(t, digest, &idx)
	ca, err := os.ReadFile(caBundle(t))
	if err != nil {
		t.Fatal(err)
	}
	deps := map[string]bool{}
	seen := map[string]bool{}
	for _, m := range idx.Manifests {
		if m.Platform == nil || m.Platform.OS != "linux" {
			t.Fatalf("manifest %s: platform %+v", m.Digest, m.Platform)
		}
		arch := m.Platform.Architecture
		seen[arch] = true
		checkPlatform(t, l, m, arch, ca, deps)
	}
	if len(seen) != 2 || !seen["amd64"] || !seen["arm64"] {
		t.Fatalf("index platforms %v, want linux/amd64 and linux/arm64", seen)
	}
	return deps
}

// checkPlatform checks one platform's image and adds its binary's Go
// modules to deps.
func checkPlatform(t *testing.T, l ociLayout, m descriptor, arch string, ca []byte, deps map[string]bool) {
	var man manifest
	l.decode(t, m.Digest, &man)
	var cfg imageConfig
	l.decode(t, man.Config.Digest, &cfg)
	if cfg.OS != "linux" || cfg.Architecture != arch || cfg.Config.User != nonroot ||
		strings.Join(cfg.Config.Entrypoint, " ") != "/orderhub" {
		t.Errorf("%s config: %+v", arch, cfg)
	}
	if len(man.Layers) != 1 {
		t.Fatalf("%s: %d layers, want 1", arch, len(man.Layers))
	}
	files, headers, err := layerFiles(l.blob(t, man.Layers[0].Digest))
	if err != nil {
		t.Fatalf("%s layer: %v", arch, err)
	}
	bin := files["orderhub"]
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatalf("%s /orderhub: %v", arch, err)
	}
	if f.Machine != wantMachine[arch] {
		t.Errorf("%s /orderhub is an ELF for %v, want %v", arch, f.Machine, wantMachine[arch])
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s /orderhub is dynamically linked", arch)
		}
	}
	if h := headers["orderhub"]; h == nil || h.Mode&0o111 == 0 {
		t.Errorf("%s /orderhub is not executable: %+v", arch, h)
	}
	if !bytes.Equal(files["etc/ssl/certs/ca-certificates.crt"], ca) {
		t.Errorf("%s: the CA bundle is not the pinned Debian ca-certificates bundle", arch)
	}
	if !strings.Contains(string(files["etc/passwd"]), "nonroot:x:65532:65532:") {
		t.Errorf("%s /etc/passwd: %q", arch, files["etc/passwd"])
	}
	bi, err := buildinfo.Read(bytes.NewReader(bin))
	if err != nil {
		t.Fatalf("%s buildinfo: %v", arch, err)
	}
	for _, d := range bi.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		deps[d.Path+"@"+d.Version] = true
	}
}

// toolsEnv is `hack/tools.sh env` as a map.
func toolsEnv(t *testing.T) map[string]string {
	t.Helper()
	repo, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := exec.Command(filepath.Join(repo, "hack", "tools.sh"), "env").Output()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			env[k] = v
		}
	}
	return env
}

// caBundle is the bundle hack/tools.sh ca-certificates wrote.
func caBundle(t *testing.T) string {
	t.Helper()
	return toolsEnv(t)["ORDERHUB_CA_CERTIFICATES"]
}
