package webhooks

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// URLServerOptions prepares a webhook server the API server reaches at
// urlBase (https://<host>:<port>, e.g. https://127.0.0.1:9443): it listens on
// that host and port and serves a self-signed certificate for that host, kept
// in certDir (see EnsureSelfSigned). The returned bundle's CA goes into the
// webhook configurations (see Registrar).
func URLServerOptions(urlBase, certDir string) (webhook.Options, *CertBundle, error) {
	u, err := url.Parse(urlBase)
	if err != nil {
		return webhook.Options{}, nil, fmt.Errorf("--webhook-url-base %q: %w", urlBase, err)
	}
	if u.Scheme != "https" || u.Hostname() == "" || u.Port() == "" {
		return webhook.Options{}, nil, fmt.Errorf("--webhook-url-base %q: want https://<host>:<port>", urlBase)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		return webhook.Options{}, nil, fmt.Errorf("--webhook-url-base %q: port: %w", urlBase, err)
	}
	bundle, err := EnsureSelfSigned(certDir, []string{u.Hostname()})
	if err != nil {
		return webhook.Options{}, nil, fmt.Errorf("webhook certificate in %s: %w", certDir, err)
	}
	return webhook.Options{Host: u.Hostname(), Port: port, CertDir: certDir}, bundle, nil
}

// Registrar is a manager Runnable that, once the webhook server serves,
// creates or updates the webhook configurations to point at URLBase and trust
// CABundle, and removes them again when the manager stops (SIGTERM, context
// cancel): a configuration outliving its hub would refuse every
// KeystoneService and ControlPlane write (failurePolicy Fail) until the hub
// is back. It runs on every replica (no leader election): each one serves.
// Self-registration is the single-process mode (local stack): the
// configurations carry one URL, and a stopping hub removes only
// configurations that still point at its own URLBase and CABundle, so one
// that took them over keeps them.
type Registrar struct {
	Client   client.Client
	Server   webhook.Server
	URLBase  string
	CABundle []byte
	// Timeout bounds the wait for the server to start (default 30s).
	Timeout time.Duration
	// RemoveTimeout bounds the removal on stop (default 10s).
	RemoveTimeout time.Duration
}

var (
	_ manager.Runnable               = Registrar{}
	_ manager.LeaderElectionRunnable = Registrar{}
)

// NeedLeaderElection is false: the registration is idempotent.
func (Registrar) NeedLeaderElection() bool { return false }

// Start waits until the webhook server accepts TLS connections, registers
// the configurations, and blocks until ctx is done; then it removes them
// (RemoveConfigurations) and returns. A server that does not start within
// the timeout is an error, which stops the manager. The manager stops this
// runnable before its webhook server, so admission is served until the
// configurations are gone. A failed removal is returned (the manager logs
// it); a hub killed without a clean stop leaves them behind, see
// docs/reference/keystoneservice.md, "orderhub: self-registered webhooks".
func (r Registrar) Start(ctx context.Context) error {
	timeout := r.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	check := r.Server.StartedChecker()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		return check(req) == nil, nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped before serving: nothing registered
		}
		return fmt.Errorf("webhook server did not start within %s: %w", timeout, err)
	}
	if err := EnsureConfigurations(ctx, r.Client, r.URLBase, r.CABundle); err != nil {
		return err
	}
	<-ctx.Done()
	removeTimeout := r.RemoveTimeout
	if removeTimeout == 0 {
		removeTimeout = 10 * time.Second
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	return RemoveConfigurations(rctx, r.Client, r.URLBase, r.CABundle)
}

// FreePort asks the kernel for a free TCP port on host, for tests and the
// local stack.
func FreePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
