//go:build integration

package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TestIntegration_Version_EverySubcommand builds the binary with the
// ldflags make build sets (Version, Commit) and runs `orderhub --version`
// and `orderhub <subcommand> --version` for every subcommand, in an empty
// environment: each prints the one version line on stdout and exits 0,
// without a Kubernetes configuration, namespace, Keystone or broker.
func TestIntegration_Version_EverySubcommand(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go toolchain on PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "orderhub")
	const pkg = "github.com/c5c3/orderhub/internal/version"
	build := exec.Command(goBin, "build", "-ldflags", "-X "+pkg+".Version=v0.0.0-test -X "+pkg+".Commit=feedc0de", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	want := "orderhub v0.0.0-test commit feedc0de " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	names := []string{""}
	for n := range subcommands {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) < 4 {
		t.Fatalf("subcommands = %v, want at least hub, identity and topology", names[1:])
	}
	for _, sc := range names {
		args := []string{"--version"}
		if sc != "" {
			args = []string{sc, "--version"}
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{}
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("orderhub %v: %v\nstderr: %s", args, err, stderr.String())
			continue
		}
		if stdout.String() != want || stderr.Len() != 0 {
			t.Errorf("orderhub %v: stdout %q, stderr %q; want stdout %q and no stderr", args, stdout.String(), stderr.String(), want)
		}
	}
}
