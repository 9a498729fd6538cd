//go:build integration

package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/webhooks"
)

// Helpers that run `orderhub identity` as its own process: controller-runtime
// refuses a second controller of the same name in one process, so tests that
// run more than one identity controller (or one after TestIntegration_Identity_
// StartsWithoutKeystone) start the binary.

// orderhubBinary builds ./cmd/orderhub into a directory t removes.
func orderhubBinary(t *testing.T) string {
	t.Helper()
	repo, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "orderhub")
	build := exec.Command("go", "build", "-o", bin, "./cmd/orderhub")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// keystoneClient is a client for the core and keystone kinds of st's apiserver.
func keystoneClient(t *testing.T, st *testenv.Stack) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = kv1.AddToScheme(scheme)
	c, err := client.New(st.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startIdentityProcess runs `orderhub identity --namespace=ns args...` as the
// stack's server name with env (the OS_* variables) and the stack's
// kubeconfig, and waits until it serves /healthz. The stack stops it.
func startIdentityProcess(t *testing.T, st *testenv.Stack, bin, name, ns string, env []string, args ...string) {
	t.Helper()
	port, err := webhooks.FreePort("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	health := fmt.Sprintf("http://127.0.0.1:%d/healthz", port)
	all := append([]string{"identity", "--namespace=" + ns, "--metrics-bind-address=0",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", port), "--error-backoff=500ms"}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logPath, err := st.StartProcess(ctx, name, bin, all, append([]string{"KUBECONFIG=" + st.Kube.Kubeconfig}, env...),
		func(ctx context.Context) error { return httpGetOK(ctx, health) })
	if err != nil {
		t.Fatalf("start %s: %v (log %s)", name, err, logPath)
	}
	t.Logf("%s log: %s", name, logPath)
}

// waitDomainReady waits until d is Ready=True for its generation and returns
// it as read.
func waitDomainReady(t *testing.T, c client.Client, d *kv1.Domain, timeout time.Duration) {
	t.Helper()
	testenv.Eventually(t, timeout, "Domain "+d.Name+" Ready", func() error {
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(d), d); err != nil {
			return err
		}
		cond := meta.FindStatusCondition(d.Status.Conditions, kv1.ConditionReady)
		if cond == nil || cond.Status != metav1.ConditionTrue || cond.ObservedGeneration != d.Generation {
			return fmt.Errorf("Ready = %v", cond)
		}
		return nil
	})
}

// envWithout drops the variables named in drop from kvs (NAME=value).
func envWithout(kvs []string, drop ...string) []string {
	var out []string
	for _, kv := range kvs {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, d := range drop {
			keep = keep && name != d
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}
