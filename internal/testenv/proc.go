package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// We start every server ourselves instead of through envtest's process
// helpers: a server must die with the process that started it (Pdeathsig,
// even when that process is SIGKILLed), be recorded in a pid file so a later
// run or `hack/stack down` can stop what an earlier one left, and start the
// same way for tests, the demo and `hack/stack`. envtest exposes none of that.

// proc is one running server process, recorded in <stack dir>/pids/<name>.pid.
type proc struct {
	name    string
	cmd     *exec.Cmd
	pidFile string
	logPath string
	exited  chan struct{}
	err     error // set when exited is closed
	// bin, match, args, env and dir are the command it was started with,
	// so Stack.Restart can start it again the same way (restart.go).
	bin, match, dir string
	args, env       []string
	// ready, when set, is its readiness check for Stack.Restart.
	ready func(context.Context) error
}

// startProc starts bin with args and env (added to a minimal environment) in
// dir, logging stdout and stderr to <stack>/logs/<name>.log. The process gets
// SIGKILL when the starting process dies (Pdeathsig), and its own process group
// so a terminal's Ctrl-C reaches only the stack's owner, which stops it in order.
func (s *Stack) startProc(name, bin string, args, env []string, dir string) (*proc, error) {
	return s.startProcMatch(name, bin, bin, args, env, dir)
}

// startProcMatch is startProc with the string that identifies the process in
// /proc/<pid>/cmdline for the pid file (see isProcOf).
func (s *Stack) startProcMatch(name, bin, match string, args, env []string, dir string) (*proc, error) {
	// Logs are private to the stack's user (0700 folder, 0600 files): a
	// server may print a credential into its log (the dev OpenBao server
	// prints its root token).
	logPath := filepath.Join(s.Dir, "logs", name+".log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		return nil, err
	}
	if err := os.Chmod(filepath.Dir(logPath), 0o700); err != nil {
		return nil, err
	}
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	if err := lf.Chmod(0o600); err != nil { // a log of an earlier run keeps its mode otherwise
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(baseEnv(), env...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, exited: make(chan struct{}),
		pidFile: filepath.Join(s.Dir, "pids", name+".pid"),
		bin:     bin, match: match, dir: dir, args: args, env: env}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	if err := writePidFile(p.pidFile, cmd.Process.Pid, match); err != nil {
		_ = p.stop(time.Second)
		return nil, err
	}
	s.procsMu.Lock()
	s.procs = append(s.procs, p)
	s.procsMu.Unlock()
	s.logf("started %s (pid %d), log %s", name, cmd.Process.Pid, logPath)
	return p, nil
}

// baseEnv is the environment a server inherits: the caller's, minus variables
// that would point a server at a user's own clusters or clouds.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "KUBECONFIG" || strings.HasPrefix(k, "OS_") || strings.HasPrefix(k, "VAULT_") || strings.HasPrefix(k, "RABBITMQ_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// stop sends SIGTERM to the process group, waits up to grace, then SIGKILLs it.
func (p *proc) stop(grace time.Duration) error {
	select {
	case <-p.exited:
	default:
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(grace):
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.exited
		}
	}
	_ = os.Remove(p.pidFile)
	return nil
}

// alive reports whether the process still runs, with its log tail otherwise.
func (p *proc) alive() error {
	select {
	case <-p.exited:
		return fmt.Errorf("%s exited (%v); last log lines:\n%s", p.name, p.err, tail(p.logPath, 30))
	default:
		return nil
	}
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// A pid file holds "<pid> <match>" so a reaper can check that a recorded pid
// still belongs to the server it started before killing it (pids are reused).
func writePidFile(path string, pid int, match string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(fmt.Sprintf("%d %s\n", pid, match)), 0o644)
}

// killRecorded stops every process recorded under dir/pids whose executable is
// still the recorded one, and waits for each to exit. It returns the names stopped.
func killRecorded(dir string, grace time.Duration) []string {
	entries, _ := os.ReadDir(filepath.Join(dir, "pids"))
	var stopped []string
	for _, e := range entries {
		path := filepath.Join(dir, "pids", e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		pidStr, match, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
		pid, err := strconv.Atoi(pidStr)
		if err == nil && pid > 1 && isProcOf(pid, match) {
			_ = syscall.Kill(-pid, syscall.SIGTERM)
			_ = syscall.Kill(pid, syscall.SIGTERM)
			deadline := time.Now().Add(grace)
			for isProcOf(pid, match) && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond) // polling another process's exit: no channel to wait on
			}
			if isProcOf(pid, match) {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			stopped = append(stopped, strings.TrimSuffix(e.Name(), ".pid"))
		}
		_ = os.Remove(path)
	}
	return stopped
}

// isProcOf reports whether pid runs (not a zombie) and its command line
// contains match: the binary path for most servers, the private home
// folder for RabbitMQ, whose start script execs into the Erlang VM.
func isProcOf(pid int, match string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return false
	}
	if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		if i := strings.LastIndexByte(string(st), ')'); i >= 0 {
			if f := strings.Fields(string(st[i+1:])); len(f) > 0 && f[0] == "Z" {
				return false
			}
		}
	}
	return strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), match)
}

// freePort asks the kernel for a free loopback TCP port. The port is released
// before the server binds it; a collision shows up as a start failure.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func freePorts(n int) ([]int, error) {
	// Hold all listeners until every port is chosen so the n ports differ.
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// waitFor polls check every interval until it returns nil, the process dies,
// the context ends or timeout passes. It is the only readiness wait here.
func waitFor(ctx context.Context, what string, p *proc, timeout time.Duration, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		if p != nil {
			if err := p.alive(); err != nil {
				return err
			}
		}
		if last = check(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			msg := fmt.Sprintf("%s not ready after %s: %v", what, timeout, last)
			if p != nil {
				msg += "\nlast log lines:\n" + tail(p.logPath, 30)
			}
			return errors.New(msg)
		case <-tick.C:
		}
	}
}
