package testenv

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"
)

// Faults for soaks and recovery tests: a server of the stack is killed or
// stopped and started again with the command line, environment and folder it
// was started with, so it comes back on the same port with the same data
// (etcd's and Keystone's databases, the apiserver's certificates, the
// persistent OpenBao storage of Options.OpenBaoPersistent).

// RestartTimeout bounds Restart's readiness wait.
const RestartTimeout = 2 * time.Minute

// current returns the latest process started under name, nil when none.
func (s *Stack) current(name string) *proc {
	s.procsMu.Lock()
	defer s.procsMu.Unlock()
	for i := len(s.procs) - 1; i >= 0; i-- {
		if s.procs[i].name == name {
			return s.procs[i]
		}
	}
	return nil
}

// Kill sends SIGKILL to the process group of the stack's server name (as
// Logs names them: "kube-apiserver", "keystone", "openbao", "k-orc",
// "external-secrets", or a StartProcess name) and waits until it exited.
// Errors: no server of that name, or it is not running.
func (s *Stack) Kill(name string) error {
	return s.halt(name, syscall.SIGKILL, 0)
}

// Terminate sends SIGTERM to the server name's process group, waits up to
// grace for it to exit, then SIGKILLs it. Errors as Kill.
func (s *Stack) Terminate(name string, grace time.Duration) error {
	return s.halt(name, syscall.SIGTERM, grace)
}

func (s *Stack) halt(name string, sig syscall.Signal, grace time.Duration) error {
	p := s.current(name)
	if p == nil {
		return fmt.Errorf("testenv: no server %q in this stack", name)
	}
	if p.alive() != nil {
		return fmt.Errorf("testenv: %s is not running", name)
	}
	if sig == syscall.SIGKILL {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
		_ = os.Remove(p.pidFile)
		return nil
	}
	return p.stop(grace)
}

// Running reports whether the server name runs.
func (s *Stack) Running(name string) bool {
	p := s.current(name)
	return p != nil && p.alive() == nil
}

// Restart starts the server name again with the command line, environment
// and folder of its last start, and waits (up to RestartTimeout) until it is
// ready: the apiserver's /readyz, Keystone's /v3, OpenBao unsealed and active
// (Options.OpenBaoPersistent; a dev-mode server comes back empty), K-ORC's
// /readyz, ESO's metrics, a StartProcess server's own check; other servers
// only need to keep running. Errors: no such server, it still runs, it does
// not start, or it is not ready in time (with its log tail).
func (s *Stack) Restart(ctx context.Context, name string) error {
	old := s.current(name)
	if old == nil {
		return fmt.Errorf("testenv: no server %q in this stack", name)
	}
	if old.alive() == nil {
		return fmt.Errorf("testenv: %s still runs; Kill or Terminate it first", name)
	}
	p, err := s.startProcMatch(name, old.bin, old.match, old.args, old.env, old.dir)
	if err != nil {
		return err
	}
	p.ready = old.ready
	check := s.readiness(p)
	return waitFor(ctx, name, p, RestartTimeout, check)
}

// StartProcess starts bin with args as the stack's server name, as the
// stack starts its own: recorded in <Dir>/pids (so a later run and
// `hack/stack down` stop it), killed when the calling process dies, logging
// to <Dir>/logs/<name>.log, stopped by Stop with the controllers' class when
// name is one of theirs and otherwise with the other servers. env is added
// to a minimal environment (KUBECONFIG, OS_*, VAULT_* and RABBITMQ_* of the
// caller are dropped). ready is polled every 200ms up to RestartTimeout, and
// again after every Restart. It returns the log's path. Errors: the start,
// or readiness.
func (s *Stack) StartProcess(ctx context.Context, name, bin string, args, env []string, ready func(context.Context) error) (string, error) {
	p, err := s.startProc(name, bin, args, env, s.Dir)
	if err != nil {
		return "", err
	}
	p.ready = ready
	return p.logPath, waitFor(ctx, name, p, RestartTimeout, s.readiness(p))
}

// readiness is the check Restart waits on for p.
func (s *Stack) readiness(p *proc) func(context.Context) error {
	if p.ready != nil {
		return p.ready
	}
	none := func(context.Context) error { return nil }
	switch p.name {
	case "kube-apiserver":
		insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // readiness only
		return func(ctx context.Context) error {
			return httpOK(ctx, insecure, s.Kube.URL+"/readyz", map[string]string{"Authorization": "Bearer " + s.Kube.Config.BearerToken})
		}
	case "keystone":
		return func(ctx context.Context) error { return httpOK(ctx, http.DefaultClient, s.Keystone.URL, nil) }
	case "openbao":
		if s.opts.OpenBaoPersistent {
			return func(ctx context.Context) error { return s.unsealOpenBao(ctx) }
		}
		return func(ctx context.Context) error {
			return httpOK(ctx, http.DefaultClient, s.OpenBao.Addr+"/v1/sys/health", nil)
		}
	case "k-orc":
		if addr := argValue(p.args, "--health-probe-bind-address="); addr != "" {
			return func(ctx context.Context) error { return httpOK(ctx, http.DefaultClient, "http://"+addr+"/readyz", nil) }
		}
	case "external-secrets":
		if addr := argValue(p.args, "--metrics-addr="); addr != "" {
			return func(ctx context.Context) error {
				return httpOK(ctx, http.DefaultClient, "http://"+addr+"/metrics", nil)
			}
		}
	}
	return none
}

// argValue returns the value of the first argument starting with prefix.
func argValue(args []string, prefix string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, prefix); ok {
			return v
		}
	}
	return ""
}
