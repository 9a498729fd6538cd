package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat
// (proc(5)); 100 on every Linux architecture Go supports.
const clockTicks = 100

// process is a controller under measurement, run as its own process so its
// RSS and CPU time can be read from /proc.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// startProcess runs bin with args and env (added to the bench's own), logging
// to <logDir>/<name>.log, and waits until GET probeURL answers 2xx.
func startProcess(ctx context.Context, name, logDir, bin string, args, env []string, probeURL string) (*process, error) {
	return startProcessUntil(ctx, name, logDir, bin, args, env, "at "+probeURL, func(*process) bool {
		resp, err := http.Get(probeURL)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode/100 == 2
	})
}

// startProcessUntil is startProcess waiting until ready (what names it).
func startProcessUntil(ctx context.Context, name, logDir, bin string, args, env []string, what string, ready func(*process) bool) (*process, error) {
	logPath := filepath.Join(logDir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	p := &process{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); f.Close(); close(p.done) }()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		select {
		case <-p.done:
			return nil, fmt.Errorf("%s exited during start-up; see %s", name, logPath)
		case <-ctx.Done():
			p.stop()
			return nil, ctx.Err()
		default:
		}
		if ready(p) {
			return p, nil
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("%s not ready %s after 3m; see %s", name, what, logPath)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stop sends SIGTERM, and SIGKILL after 20 s.
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// cpuSeconds is the process's user+system CPU time so far.
func (p *process) cpuSeconds() (float64, error) { return cpuSecondsOf(p.cmd.Process.Pid) }

// cpuSecondsOf is process pid's user+system CPU time so far.
func cpuSecondsOf(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime and stime (fields 14 and 15 of proc(5)'s
// /proc/<pid>/stat) in seconds. The command name (field 2) may hold spaces
// and parentheses, so fields are counted after its last ')'.
func parseStatCPU(stat string) (float64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("stat: no command field")
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("stat: %d fields after the command", len(f))
	}
	ut, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("stat: utime %q stime %q", f[11], f[12])
	}
	return (ut + st) / clockTicks, nil
}

// peakRSSMiB is the process's peak resident set (VmHWM) in MiB.
func (p *process) peakRSSMiB() (float64, error) { return peakRSSMiBOf(p.cmd.Process.Pid) }

// peakRSSMiBOf is process pid's peak resident set (VmHWM) in MiB.
func peakRSSMiBOf(pid int) (float64, error) { return statusMiBOf(pid, "VmHWM") }

// statusMiBOf reads the kB line key of process pid's /proc status, in MiB.
func statusMiBOf(pid int, key string) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseStatusKiB(string(b), key)
}

// parseStatusKiB reads a "Key:   123 kB" line of /proc/<pid>/status, in MiB.
func parseStatusKiB(status, key string) (float64, error) {
	for _, line := range strings.Split(status, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || k != key {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("status %s: %q", key, v)
		}
		n, err := strconv.ParseFloat(f[0], 64)
		return n / 1024, err
	}
	return 0, fmt.Errorf("status: no %s", key)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
