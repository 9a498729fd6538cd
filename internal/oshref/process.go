package oshref

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configure one controller process; the names are its header's
// environment variables (RABBITMQ_TOPOLOGY_CONTROLLER_*, RABBITMQ_*).
type Options struct {
	Python      string // DefaultPython when empty
	Kubeconfig  string
	Namespace   string
	APIGroup    string // rabbitmq.osh.openstack.org when empty
	ClusterName string // RABBITMQ_REF_NAME
	Scheme      string // http when empty
	Host        string
	Port        int
	User        string
	Password    string
	// Interval and Backoff are whole seconds, at least 1.
	Interval    time.Duration
	Backoff     time.Duration
	DeleteGuest bool
	// Log receives the controller's output besides Process.Log.
	Log io.Writer
}

// Process is a running controller.
type Process struct {
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	log  bytes.Buffer
	tee  io.Writer
}

// SweepLine is logged at debug level after every sweep.
const SweepLine = "Sleeping for "

// Env is the controller's environment for o (without PATH and HOME).
func Env(o Options) []string {
	secs := func(d time.Duration) string { return strconv.Itoa(max(1, int(d/time.Second))) }
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	env := []string{
		"KUBECONFIG=" + o.Kubeconfig,
		"RABBITMQ_TOPOLOGY_CONTROLLER_DEBUG=1",
		"RABBITMQ_TOPOLOGY_CONTROLLER_NAMESPACE=" + o.Namespace,
		"RABBITMQ_TOPOLOGY_CONTROLLER_API_GROUP=" + or(o.APIGroup, "rabbitmq.osh.openstack.org"),
		"RABBITMQ_TOPOLOGY_CONTROLLER_RECONCILE_INTERVAL=" + secs(o.Interval),
		"RABBITMQ_TOPOLOGY_CONTROLLER_ERROR_BACKOFF=" + secs(o.Backoff),
		"RABBITMQ_SCHEME=" + or(o.Scheme, "http"),
		"RABBITMQ_HOST=" + o.Host,
		"RABBITMQ_PORT=" + strconv.Itoa(o.Port),
		"RABBITMQ_USER=" + o.User,
		"RABBITMQ_PASSWORD=" + o.Password,
		"RABBITMQ_REF_NAME=" + o.ClusterName,
		"PYTHONUNBUFFERED=1",
	}
	if o.DeleteGuest {
		env = append(env, "RABBITMQ_TOPOLOGY_CONTROLLER_DELETE_GUEST_USER=1")
	}
	return env
}

// Start runs script (from Render) with o. The process dies with its parent
// (Pdeathsig) and is stopped by Stop or when ctx ends. No in-cluster
// variables are passed, so the client reads the kubeconfig.
func Start(ctx context.Context, script string, o Options) (*Process, error) {
	python := o.Python
	if python == "" {
		python = DefaultPython
	}
	cmd := exec.CommandContext(ctx, python, script)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + os.TempDir()}, Env(o)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	p := &Process{cmd: cmd, done: make(chan struct{}), tee: o.Log}
	cmd.Stdout, cmd.Stderr = p, p
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s %s: %w", python, script, err)
	}
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p, nil
}

func (p *Process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tee != nil {
		_, _ = p.tee.Write(b)
	}
	return p.log.Write(b)
}

// Log is everything the controller wrote so far.
func (p *Process) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// Sweeps counts the sweeps finished so far (SweepLine).
func (p *Process) Sweeps() int { return strings.Count(p.Log(), SweepLine) }

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Stop ends the process (SIGTERM, then SIGKILL after 5 s) and waits for it.
func (p *Process) Stop() {
	if !p.Exited() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
}
