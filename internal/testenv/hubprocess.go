package testenv

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/webhooks"
)

// HubWebhookTimeout bounds StartHub's wait for the hub's webhook
// configurations.
const HubWebhookTimeout = 2 * time.Minute

// HubProcess configures StartHub.
type HubProcess struct {
	// Name is the stack's server name (Kill, Restart, Pid).
	Name string
	// Bin is the orderhub binary.
	Bin string
	// Kubeconfig is the hub's kubeconfig; default the stack's.
	Kubeconfig string
	// TargetSecretNamespace is --target-cluster-secret-namespace, where the
	// target clusters' registration Secrets are read.
	TargetSecretNamespace string
	// Args are added to the command line.
	Args []string
}

// StartHub runs `orderhub hub` as the stack's server h.Name, as
// hack/demo-order.sh starts it: leader election off, its webhooks
// self-registered on loopback (--webhook-url-base, a self-signed
// certificate in <Dir>/<name>-webhook-certs), the SecretStores pointing at
// the stack's OpenBao and its tenant auth method. It waits until the hub's
// /readyz answers and both webhook configurations, read with c, call it,
// and returns its log's path. Errors: the stack runs no OpenBao, the start,
// readiness, or the webhook configurations not registered within
// HubWebhookTimeout.
func (s *Stack) StartHub(ctx context.Context, c client.Client, h HubProcess) (string, error) {
	bao := s.OpenBao
	if bao == nil {
		return "", fmt.Errorf("testenv: the stack runs no OpenBao")
	}
	ports, err := freePorts(2)
	if err != nil {
		return "", err
	}
	probe, webhook := ports[0], ports[1]
	kubeconfig := h.Kubeconfig
	if kubeconfig == "" {
		kubeconfig = s.Kube.Kubeconfig
	}
	base := "https://127.0.0.1:" + strconv.Itoa(webhook)
	args := append([]string{"hub",
		"--leader-elect=false",
		"--metrics-bind-address=0",
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(probe),
		"--webhook-url-base=" + base,
		"--webhook-cert-dir=" + filepath.Join(s.Dir, h.Name+"-webhook-certs"),
		"--openbao-address=" + bao.Addr,
		"--openbao-kv-mount=" + bao.KVMount,
		"--openbao-auth-mount=" + bao.AuthMount,
		"--openbao-role=" + bao.Role,
		"--openbao-service-account=" + bao.ServiceAccount,
		"--target-cluster-secret-namespace=" + h.TargetSecretNamespace,
	}, h.Args...)
	readyURL := fmt.Sprintf("http://127.0.0.1:%d/readyz", probe)
	log, err := s.StartProcess(ctx, h.Name, h.Bin, args, []string{"KUBECONFIG=" + kubeconfig},
		func(ctx context.Context) error { return httpOK(ctx, http.DefaultClient, readyURL, nil) })
	if err != nil {
		return log, fmt.Errorf("orderhub hub: %w", err)
	}
	return log, waitHubWebhooks(ctx, c, base+"/")
}

// waitHubWebhooks polls every second until the hub's mutating and validating
// webhook configurations call want.
func waitHubWebhooks(ctx context.Context, c client.Client, want string) error {
	ctx, cancel := context.WithTimeout(ctx, HubWebhookTimeout)
	defer cancel()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		last := hubWebhooksCall(ctx, c, want)
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the hub's webhook configurations: not within %s: %v", HubWebhookTimeout, last)
		case <-tick.C:
		}
	}
}

func hubWebhooksCall(ctx context.Context, c client.Client, want string) error {
	var m admissionregistrationv1.MutatingWebhookConfiguration
	var v admissionregistrationv1.ValidatingWebhookConfiguration
	if err := c.Get(ctx, client.ObjectKey{Name: webhooks.MutatingConfigurationName}, &m); err != nil {
		return err
	}
	if err := c.Get(ctx, client.ObjectKey{Name: webhooks.ValidatingConfigurationName}, &v); err != nil {
		return err
	}
	var urls []*string
	for _, w := range m.Webhooks {
		urls = append(urls, w.ClientConfig.URL)
	}
	for _, w := range v.Webhooks {
		urls = append(urls, w.ClientConfig.URL)
	}
	if len(urls) == 0 {
		return fmt.Errorf("no webhooks registered yet")
	}
	for _, u := range urls {
		if u == nil || !strings.HasPrefix(*u, want) {
			return fmt.Errorf("webhook URL %v, want %s...", u, want)
		}
	}
	return nil
}

// Pid is the process id of the stack's server name (as Kill names them).
// Errors: no server of that name, or it is not running.
func (s *Stack) Pid(name string) (int, error) {
	p := s.current(name)
	if p == nil {
		return 0, fmt.Errorf("testenv: no server %q in this stack", name)
	}
	if err := p.alive(); err != nil {
		return 0, err
	}
	return p.cmd.Process.Pid, nil
}
