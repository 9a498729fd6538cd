package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Every running stack registers its folder under <cache>/run/<owner pid>.
// Servers already die with their owner (Pdeathsig); the registry is the
// second line: when a run is killed in a way that skips both (a server that
// ignored the signal, or a stack whose folder was kept), the next Start, or
// `hack/stack down`, stops whatever a dead owner recorded, pid by pid.

func registryDir(cache string) string { return filepath.Join(cache, "run") }

func (s *Stack) register() error {
	dir := registryDir(s.tools.cache)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	s.regFile = filepath.Join(dir, fmt.Sprintf("%d-%s", os.Getpid(), filepath.Base(s.Dir)))
	return os.WriteFile(s.regFile, []byte(s.Dir+"\n"), 0o644)
}

func (s *Stack) unregister() {
	if s.regFile != "" {
		_ = os.Remove(s.regFile)
	}
}

// ReapOrphans stops the servers of stacks whose owning process has exited,
// by the pids they recorded, undoes the host changes of a node no live stack
// holds, and returns a line per stack reaped.
func ReapOrphans(cache string) []string {
	entries, _ := os.ReadDir(registryDir(cache))
	var reaped []string
	for _, e := range entries {
		pidStr, _, _ := strings.Cut(e.Name(), "-")
		owner, err := strconv.Atoi(pidStr)
		if err != nil {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", owner)); err == nil {
			continue // owner alive
		}
		path := filepath.Join(registryDir(cache), e.Name())
		b, err := os.ReadFile(path)
		if err == nil {
			dir := strings.TrimSpace(string(b))
			if stopped := killRecorded(dir, 10*time.Second); len(stopped) > 0 {
				reaped = append(reaped, fmt.Sprintf("%s: %s", dir, strings.Join(stopped, ", ")))
			}
		}
		_ = os.Remove(path)
	}
	// A node's host changes (bridges, iptables rules, mounts, cgroups,
	// sysctls) are recorded machine-wide, not per stack folder.
	if r, ok := reapNode(); ok {
		reaped = append(reaped, r)
	}
	return reaped
}
