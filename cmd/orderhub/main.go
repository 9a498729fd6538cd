// Command orderhub is the single binary of the project. Each controller runs
// as its own subcommand so it deploys alone, with its own RBAC and flags:
//
//	orderhub hub       c5c3.io/v1alpha1 orders (Kubernetes, K-ORC, ESO, OpenBao)
//	orderhub identity  keystone.osh.openstack.org/v1alpha1 (Keystone)
//	orderhub topology  rabbitmq.osh.openstack.org/v1alpha1 (RabbitMQ)
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"

	// GOMEMLIMIT at 90 % of the container's cgroup memory limit (the chart's
	// resources.limits.memory), so the garbage collector works harder before
	// the kernel kills the process; AUTOMEMLIMIT=off or a set GOMEMLIMIT
	// overrides it (https://github.com/KimMachineGun/automemlimit).
	_ "github.com/KimMachineGun/automemlimit"

	"github.com/c5c3/orderhub/internal/version"
)

// subcommand is one controller of the binary. run parses its own flags from
// args and blocks until the manager stops; a non-nil error exits with status 1.
type subcommand struct {
	summary string
	run     func(args []string) error
}

// subcommands is filled by the init functions of this package's per-subcommand
// files (hub.go, identity.go, topology.go), keeping each controller's wiring in
// one file.
var subcommands = map[string]subcommand{}

// printVersion writes version.Info to standard output, for --version.
func printVersion() error {
	_, err := fmt.Println(version.Info())
	return err
}

func usage() {
	fmt.Fprintf(os.Stderr, "usage: orderhub <subcommand> [flags]\n\nsubcommands:\n")
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", n, subcommands[n].summary)
	}
	fmt.Fprintf(os.Stderr, "\n'orderhub <subcommand> -h' lists its flags; 'orderhub [<subcommand>] --version' prints the version and commit.\n")
}

func main() {
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
		usage()
		if len(os.Args) < 2 {
			os.Exit(2)
		}
		return
	}
	if os.Args[1] == "--version" || os.Args[1] == "-version" || os.Args[1] == "version" {
		_ = printVersion()
		return
	}
	sc, ok := subcommands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "orderhub: unknown subcommand %q\n\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err := sc.run(os.Args[2:]); err != nil {
		if err == flag.ErrHelp {
			return
		}
		fmt.Fprintf(os.Stderr, "orderhub %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
