package main

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/c5c3/orderhub/internal/oshref"
)

func TestOSHPythonSkip(t *testing.T) {
	ok := func() error { return nil }
	noPython := func() error { return errors.New("no python3-kubernetes") }
	for _, c := range []struct {
		checkout string
		check    func() error
		want     string
	}{
		{"", ok, "no -osh-checkout"},
		{"/osh", noPython, "no python3-kubernetes"},
		{"/osh", ok, ""},
	} {
		got := oshPythonSkip(c.checkout, c.check)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("oshPythonSkip(%q): %q, want %q", c.checkout, got, c.want)
		}
	}
}

// The chart runs the controller without debug logging; the bench does too,
// over internal/oshref's debug default.
func TestOSHPythonEnvHasTheChartsDebugSetting(t *testing.T) {
	cmd := exec.Command("true")
	cmd.Env = oshPythonEnv(oshref.Options{Namespace: "ns", Interval: oshInterval, Backoff: oshBackoff})
	env := cmd.Environ()
	for _, want := range []string{"RABBITMQ_TOPOLOGY_CONTROLLER_DEBUG=0", "RABBITMQ_TOPOLOGY_CONTROLLER_RECONCILE_INTERVAL=10",
		"RABBITMQ_TOPOLOGY_CONTROLLER_ERROR_BACKOFF=10", "RABBITMQ_TOPOLOGY_CONTROLLER_NAMESPACE=ns"} {
		if !slices.Contains(env, want) {
			t.Errorf("environment %v lacks %s", env, want)
		}
	}
	if slices.Contains(env, "RABBITMQ_TOPOLOGY_CONTROLLER_DEBUG=1") {
		t.Errorf("environment %v keeps oshref's debug setting", env)
	}
}

func TestOSHServes(t *testing.T) {
	if oshServes([]byte("2026-12-05 06:52:49 INFO rabbitmq-topology-controller RabbitMQ management API at http://127.0.0.1:1\n")) {
		t.Error("serving before the Kubernetes client")
	}
	if !oshServes([]byte("2026-12-05 06:52:49 INFO rabbitmq-topology-controller Created k8s api client from a kubeconfig\n")) {
		t.Error("not serving after the Kubernetes client")
	}
}
