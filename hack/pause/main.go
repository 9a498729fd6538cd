// Command pause is the sandbox ("pause") container of the local stack's node
// (hack/tools.sh node packs it into an image; docs/local-stack.md). It holds a
// pod's namespaces open: it blocks, reaps the children the kernel re-parents to
// it (it is PID 1 of the pod when the pod shares one process namespace), and
// exits 0 on SIGTERM or SIGINT. It replaces registry.k8s.io/pause, so the node
// pulls nothing from the network.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sigs {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
