package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The ports handed out lie below the kernel's ephemeral range, so no bind(0)
// or outgoing connection takes one, and stay held after the call.
func TestFreePorts_HeldAndBelowEphemeral(t *testing.T) {
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		lo, err := strconv.Atoi(strings.Fields(string(b))[0])
		if err != nil {
			t.Fatal(err)
		}
		if portHigh > lo {
			t.Fatalf("portHigh %d reaches into this machine's ephemeral range from %d", portHigh, lo)
		}
	}
	ports, err := freePorts(8)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p < portLow || p >= portHigh || seen[p] {
			t.Fatalf("ports %v: %d out of [%d, %d) or repeated", ports, p, portLow, portHigh)
		}
		seen[p] = true
		if l, err := takeLock(fmt.Sprintf("@orderhub-port-%d", p)); err == nil {
			_ = releaseLock(l)
			t.Fatalf("port %d was handed out but its lock is free", p)
		}
	}
	more, err := freePorts(8)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range more {
		if seen[p] {
			t.Fatalf("port %d handed out twice (%v, then %v)", p, ports, more)
		}
	}
}

// A port something listens on is skipped; a reserved one is refused to this
// process and to another process until this one exits.
func TestReservePorts_SkipsBoundAndHeld(t *testing.T) {
	if p := os.Getenv("ORDERHUB_TEST_PORT_CHILD"); p != "" {
		port, _ := strconv.Atoi(p)
		if got, err := reservePorts(1, port, port+1); err == nil {
			fmt.Printf("child reserved %v\n", got)
			os.Exit(1)
		}
		return
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if got, err := reservePorts(1, port, port+1); err == nil {
		t.Fatalf("reserved %v while a listener holds it", got)
	}
	_ = l.Close()
	got, err := reservePorts(1, port, port+1)
	if err != nil || got[0] != port {
		t.Fatalf("after the listener closed: %v, %v", got, err)
	}
	if again, err := reservePorts(1, port, port+1); err == nil {
		t.Fatalf("reserved %v twice in one process", again)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReservePorts_SkipsBoundAndHeld$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("ORDERHUB_TEST_PORT_CHILD=%d", port))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("another process could reserve port %d: %v\n%s", port, err, out)
	}
}
