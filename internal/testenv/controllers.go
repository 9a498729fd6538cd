package testenv

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"time"
)

// startKORC runs the K-ORC manager (v2.6.0) against the stack's apiserver.
func (s *Stack) startKORC(ctx context.Context) error {
	bin := filepath.Join(s.tools.korcDir, "manager")
	if err := need(bin, "korc"); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	p, err := s.startProc("k-orc", bin, []string{
		"--kubeconfig=" + s.Kube.Kubeconfig,
		"--metrics-bind-address=0",
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(port),
		"--leader-elect=false",
	}, nil, s.Dir)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, "k-orc", p, 2*time.Minute, func(ctx context.Context) error {
		return httpOK(ctx, http.DefaultClient, fmt.Sprintf("http://127.0.0.1:%d/readyz", port), nil)
	}); err != nil {
		return err
	}
	s.KORC = &Controller{Log: p.logPath}
	return nil
}

// startESO runs the External Secrets controller (v0.16.2; it reads KUBECONFIG,
// having no flag for it). Ready once its metrics endpoint answers, which it
// opens after the manager has started.
func (s *Stack) startESO(ctx context.Context) error {
	bin := filepath.Join(s.tools.esoDir, "external-secrets")
	if err := need(bin, "eso"); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	p, err := s.startProc("external-secrets", bin, []string{
		"--metrics-addr=127.0.0.1:" + strconv.Itoa(port),
		"--enable-leader-election=false",
		"--loglevel=info",
		"--zap-time-encoding=rfc3339",
	}, []string{"KUBECONFIG=" + s.Kube.Kubeconfig}, s.Dir)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, "external-secrets", p, 2*time.Minute, func(ctx context.Context) error {
		return httpOK(ctx, http.DefaultClient, fmt.Sprintf("http://127.0.0.1:%d/metrics", port), nil)
	}); err != nil {
		return err
	}
	s.ESO = &Controller{Log: p.logPath}
	return nil
}
