package testenv

import (
	"net"
	"sync"
)

// A machine-wide lock here is an abstract unix socket (nodeLockName): the
// kernel releases it when the socket's last file descriptor closes, at the
// latest when its owner dies. The net package also closes a listener's
// descriptor when the garbage collector finalizes the listener (net.netFD
// carries a finalizer), so a lock reachable only from a Stack that its
// caller no longer references (a process that starts a stack and then only
// waits) would be given up while the node still runs, and the next Start's
// reaper (ReapOrphans) would undo the host changes of a live node.
// heldLocks keeps every lock this process holds reachable until
// releaseLock.
var heldLocks sync.Map // net.Listener → struct{}

// takeLock takes the abstract unix socket name ("@..."): the lock, held
// until releaseLock or the process's exit. Errors: net.Listen's (address in
// use while another process holds it).
func takeLock(name string) (net.Listener, error) {
	l, err := net.Listen("unix", name)
	if err != nil {
		return nil, err
	}
	heldLocks.Store(l, struct{}{})
	return l, nil
}

// releaseLock gives a lock of takeLock up.
func releaseLock(l net.Listener) error {
	heldLocks.Delete(l)
	return l.Close()
}
