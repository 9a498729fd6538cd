package testenv

import (
	"fmt"
	"net"
	"os"
	"sync"
)

// Loopback ports for the stack's servers. A server binds its port a while
// after the port is chosen, so a port found free by listening on :0 and
// closing can be handed out again meanwhile, to another stack starting at
// the same time (one server then fails: RabbitMQ with eaddrinuse). The
// ports here come from [portLow, portHigh): below the kernel's ephemeral
// range (net.ipv4.ip_local_port_range, 32768-60999 by default, which bind(0)
// and outgoing connections draw from) and below Kubernetes' NodePort range
// (30000-32767). Each is held by a machine-wide lock (takeLock,
// "@orderhub-port-<n>") until this process exits, so neither another
// orderhub process nor a later call in this one chooses it while its server
// may still be starting.
const (
	portLow  = 20000
	portHigh = 30000
)

// portNext is the offset in [portLow, portHigh) where the next search
// starts; the first is spread by pid so concurrent processes rarely meet.
var portNext = struct {
	sync.Mutex
	started bool
	off     int
}{}

// freePorts returns n distinct reserved loopback ports (reservePorts).
func freePorts(n int) ([]int, error) { return reservePorts(n, portLow, portHigh) }

// freePort returns one reserved loopback port (reservePorts).
func freePort() (int, error) {
	ports, err := freePorts(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}

// reservePorts returns n distinct ports of [low, high) that nothing listens
// on at 127.0.0.1 and that no orderhub process holds, each held until this
// process exits. Errors: fewer than n such ports in the range (the ones
// found are given back).
func reservePorts(n, low, high int) ([]int, error) {
	span := high - low
	if n <= 0 || span <= 0 {
		return nil, fmt.Errorf("reservePorts(%d, %d, %d): nothing to reserve", n, low, high)
	}
	portNext.Lock()
	defer portNext.Unlock()
	if !portNext.started {
		portNext.started, portNext.off = true, (os.Getpid()*7919)%span
	}
	var held []net.Listener
	ports := make([]int, 0, n)
	for i := 0; i < span && len(ports) < n; i++ {
		p := low + (portNext.off+i)%span
		lock, err := takeLock(fmt.Sprintf("@orderhub-port-%d", p))
		if err != nil {
			continue // another orderhub process, or this one, holds it
		}
		if !bindable(p) {
			_ = releaseLock(lock)
			continue
		}
		held = append(held, lock)
		ports = append(ports, p)
	}
	if len(ports) < n {
		for _, l := range held {
			_ = releaseLock(l)
		}
		return nil, fmt.Errorf("only %d free loopback ports in [%d, %d), need %d", len(ports), low, high, n)
	}
	portNext.off = (ports[n-1] - low + 1) % span
	return ports, nil
}

// bindable reports whether 127.0.0.1:port can be listened on now.
func bindable(port int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}
