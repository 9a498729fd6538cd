package testenv

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ChainsawBin returns chainsaw ($ORDERHUB_CHAINSAW, else the path `hack/tools.sh
// env` prints) and skips tb when it, or a tool the live suites' scripts call
// (openstack, kubectl, base64, curl), is missing.
func ChainsawBin(tb testing.TB) string {
	tb.Helper()
	bin := os.Getenv("ORDERHUB_CHAINSAW")
	if bin == "" {
		if t, err := findTools(); err == nil {
			bin = t.env["ORDERHUB_CHAINSAW"]
		}
	}
	if bin == "" {
		tb.Skip("ORDERHUB_CHAINSAW is not set (run via make, or export it from `hack/tools.sh env`)")
	}
	if _, err := os.Stat(bin); err != nil {
		tb.Skipf("chainsaw is not built (hack/tools.sh chainsaw): %v", err)
	}
	for _, tool := range []string{"openstack", "kubectl", "base64", "curl"} {
		if _, err := scriptLookPath(tool); err != nil {
			tb.Skipf("the suites' scripts need %s: %v", tool, err)
		}
	}
	return bin
}

// RunChainsaw runs the chainsaw suite in folder dir against the stack and
// fails t when it fails. The suites of tests/e2e read the stack through the
// environment: KUBECONFIG, KEYSTONE_URL, KEYSTONE_ADMIN_PASSWORD,
// ADMIN_CLOUDS_YAML (a clouds.yaml whose cloud "admin" is the Keystone
// admin), OPENBAO_ADDR, OPENBAO_TOKEN and OPENBAO_MOUNT (the stack's OpenBao,
// its root token and its KV v2 mount, so a suite can read a backing path over
// HTTP) and E2E_TMP (a scratch folder). The output is also written as it
// comes to a file that outlives the test, so a long suite can be followed
// (tail -f) and read after a time-out.
func (s *Stack) RunChainsaw(t *testing.T, bin, dir string) {
	t.Helper()
	suite := filepath.Base(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	begin := time.Now()
	cmd := exec.CommandContext(ctx, bin, "test", "--no-color", "--test-dir", dir,
		"--report-format", "JSON", "--report-path", t.TempDir())
	cmd.Env = append(os.Environ(), "KUBECONFIG="+s.Kube.Kubeconfig, "PATH="+s.scriptPath(), "E2E_TMP="+t.TempDir())
	if s.Keystone != nil {
		cmd.Env = append(cmd.Env, "KEYSTONE_URL="+s.Keystone.URL, "KEYSTONE_ADMIN_PASSWORD="+s.Keystone.AdminPassword,
			"ADMIN_CLOUDS_YAML="+s.Keystone.CloudsYAML)
	}
	if s.OpenBao != nil {
		cmd.Env = append(cmd.Env, "OPENBAO_ADDR="+s.OpenBao.Addr, "OPENBAO_TOKEN="+s.OpenBao.Token,
			"OPENBAO_MOUNT="+s.OpenBao.KVMount)
	}
	var buf bytes.Buffer
	live, err := os.CreateTemp("", "chainsaw-"+suite+"-*.log")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	t.Logf("chainsaw %s output: %s", suite, live.Name())
	cmd.Stdout = io.MultiWriter(&buf, live)
	cmd.Stderr = cmd.Stdout
	err = cmd.Run()
	out := buf.String()
	if err != nil {
		t.Fatalf("chainsaw %s after %s: %v\n%s", suite, time.Since(begin).Round(time.Second), err, out)
	}
	t.Logf("chainsaw %s passed in %s:\n%s", suite, time.Since(begin).Round(time.Second), chainsawSteps(out))
}

// scriptPath is PATH for the suites' scripts, with the stack's kubectl first.
func (s *Stack) scriptPath() string {
	p := os.Getenv("PATH")
	if dir := s.tools.k8sDir; dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "kubectl")); err == nil {
			return dir + string(os.PathListSeparator) + p
		}
	}
	return p
}

func scriptLookPath(tool string) (string, error) {
	if tool == "kubectl" {
		dir := os.Getenv("ORDERHUB_K8S_DIR")
		if dir == "" {
			if t, err := findTools(); err == nil {
				dir = t.k8sDir
			}
		}
		if dir != "" {
			if _, err := os.Stat(filepath.Join(dir, "kubectl")); err == nil {
				return filepath.Join(dir, "kubectl"), nil
			}
		}
	}
	return exec.LookPath(tool)
}

// chainsawSteps keeps chainsaw's step boundaries and closing summary from its
// output: when each step began and ended, which is what a passing run needs
// to show.
func chainsawSteps(out string) string {
	var keep []string
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i, l := range lines {
		if strings.Contains(l, "| TRY ") || i >= len(lines)-8 {
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	return strings.Join(keep, "\n")
}
