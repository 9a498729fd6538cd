//go:build integration

package corpus

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/c5c3/orderhub/internal/testenv"
)

// TestIntegration_ChainsawCorpora runs the generated chainsaw suites (the
// second way to run the corpora) with chainsaw v0.2.12 against a real
// kube-apiserver, with kube-controller-manager for chainsaw's namespace
// cleanup and the hub's webhooks served in-process. The chainsaw binary is
// $ORDERHUB_CHAINSAW (hack/tools.sh env); the test is skipped without it.
func TestIntegration_ChainsawCorpora(t *testing.T) {
	bin := os.Getenv("ORDERHUB_CHAINSAW")
	if bin == "" {
		t.Skip("ORDERHUB_CHAINSAW is not set (run via make, or export it from `hack/tools.sh env`)")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("chainsaw is not built (hack/tools.sh chainsaw): %v", err)
	}
	st := testenv.ForTest(t, testenv.Options{Kube: true, ControllerManager: true})
	startHubWebhooks(t, st.Kube.Config)

	for _, s := range Suites() {
		t.Run(s.Dir, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "test", "--no-color",
				"--test-dir", filepath.Join(e2eRoot(t), s.Dir),
				"--report-format", "JSON", "--report-path", t.TempDir())
			cmd.Env = append(os.Environ(), "KUBECONFIG="+st.Kube.Kubeconfig)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("chainsaw %s: %v\n%s", s.Dir, err, out)
			}
			t.Logf("chainsaw %s:\n%s", s.Dir, tailLines(string(out), 15))
		})
	}
}

func tailLines(s string, n int) string {
	lines := []rune(s)
	count := 0
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i] == '\n' {
			count++
			if count > n {
				return string(lines[i+1:])
			}
		}
	}
	return s
}
