package testenv

import (
	"archive/tar"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"syscall"
	"time"
)

// BuildImage builds a one-layer image on an empty base holding files (path in
// the image -> file on disk, mode kept, owned by root), with entrypoint, tags
// it ref and writes it as a tarball to out, for Node.ImportImage. It runs
// crane (hack/tools.sh crane): `crane mutate`, which sets the entrypoint and
// platform, reads its input from a registry, so a scratch `crane registry
// serve` on loopback holds the image while it builds.
func (s *Stack) BuildImage(ctx context.Context, ref, out string, files map[string]string, entrypoint []string) error {
	crane := s.tools.env["ORDERHUB_CRANE"]
	if err := need(crane, "crane"); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "orderhub-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	layer := filepath.Join(work, "layer.tar")
	if err := writeLayer(layer, files); err != nil {
		return err
	}

	reg := exec.CommandContext(ctx, crane, "registry", "serve", "--address", "127.0.0.1:0")
	reg.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := reg.StderrPipe()
	if err != nil {
		return err
	}
	if err := reg.Start(); err != nil {
		return fmt.Errorf("crane registry serve: %w", err)
	}
	defer func() { _ = reg.Process.Kill(); _ = reg.Wait() }()
	portCh := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`serving on port (\d+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				portCh <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	var port string
	select {
	case port = <-portCh:
	case <-time.After(30 * time.Second):
		return errors.New("crane registry serve did not report its port")
	case <-ctx.Done():
		return ctx.Err()
	}
	scratch := "127.0.0.1:" + port + "/scratch:latest"
	run := func(args ...string) error {
		if b, err := exec.CommandContext(ctx, crane, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("crane %v: %v: %s", args, err, b)
		}
		return nil
	}
	if err := run("append", "--oci-empty-base", "-f", layer, "-t", scratch); err != nil {
		return err
	}
	args := []string{"mutate", "--set-platform", "linux/" + runtime.GOARCH, "-t", ref, "-o", out}
	for _, e := range entrypoint {
		args = append(args, "--entrypoint", e)
	}
	return run(append(args, scratch)...)
}

func writeLayer(path string, files map[string]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		src, err := os.Open(files[name])
		if err != nil {
			return err
		}
		st, err := src.Stat()
		if err != nil {
			src.Close()
			return err
		}
		hdr := &tar.Header{Name: filepath.Clean("/" + name)[1:], Mode: int64(st.Mode().Perm()), Size: st.Size(),
			Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)}
		if err := tw.WriteHeader(hdr); err != nil {
			src.Close()
			return err
		}
		_, err = io.Copy(tw, src)
		src.Close()
		if err != nil {
			return err
		}
	}
	return tw.Close()
}
