// Package oshref runs OpenStack-Helm's Python reference topology controller
// (rabbitmq/templates/bin/_rabbitmq_topology_controller.py.tpl) from a
// checkout, so tests and hack/bench can compare orderhub topology with it
// (docs/topology.md, "The OpenStack-Helm Python controller as an oracle").
// The project carries none of the Python code: the checkout is given at run
// time (EnvCheckout, or hack/bench's -osh-checkout).
package oshref

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const (
	// EnvCheckout names an OpenStack-Helm checkout (its root holds rabbitmq/).
	EnvCheckout = "ORDERHUB_OSH_CHECKOUT"
	// EnvCommit names the checkout's commit when it is not a git work tree.
	EnvCommit = "ORDERHUB_OSH_COMMIT"
	// TemplatePath is the controller's helm template inside the checkout.
	TemplatePath = "rabbitmq/templates/bin/_rabbitmq_topology_controller.py.tpl"
	// DefaultPython is Debian's interpreter, which has python3-kubernetes and
	// python3-requests (apt-get install python3-kubernetes python3-requests).
	DefaultPython = "/usr/bin/python3"
)

// Render writes the controller of checkout to dir and returns its path. The
// chart includes the template through helm-toolkit.utils.template (tpl), so
// a template without actions renders to itself; one with actions is refused
// rather than guessed at.
func Render(checkout, dir string) (string, error) {
	src, err := os.ReadFile(filepath.Join(checkout, TemplatePath))
	if err != nil {
		return "", fmt.Errorf("OpenStack-Helm checkout %s: %w", checkout, err)
	}
	if strings.Contains(string(src), "{{") {
		return "", fmt.Errorf("%s holds template actions: render it with helm (configmap-bin.yaml, key rabbitmq_topology_controller.py)", TemplatePath)
	}
	out := filepath.Join(dir, "rabbitmq_topology_controller.py")
	return out, os.WriteFile(out, src, 0o600)
}

// Commit names the checkout's commit: EnvCommit, else git's HEAD of the
// checkout, else "unknown".
func Commit(checkout string) string {
	if c := os.Getenv(EnvCommit); c != "" {
		return c
	}
	out, err := exec.Command("git", "-C", checkout, "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// CheckPython fails when python cannot import the controller's modules.
func CheckPython(python string) error {
	out, err := exec.Command(python, "-c", "import kubernetes, requests").CombinedOutput()
	if err != nil {
		return errors.New(python + " lacks kubernetes or requests (apt-get install -y --no-install-recommends python3-kubernetes python3-requests): " + strings.TrimSpace(string(out)))
	}
	return nil
}
