// Command soak is the hub's rotation soak with faults (docs/soak.md): it
// starts the local stack (internal/testenv) with a persistent
// OpenBao-compatible server and a registered target cluster, runs
// `bin/orderhub hub` as a process, orders a KeystoneService account whose
// password a CredentialRotation rotates every minute and two
// KeystoneApplicationCredentials (interval 1m, grace 30s; one on the
// management cluster, one on the target), and lets one consumer per
// delivered Secret authenticate with Keystone every second while it kills
// and restarts the hub, K-ORC, ESO, OpenBao and Keystone and takes the
// apiserver away for 30 s, at seeded random points. With -pods (the
// default) it also runs opted-in authloop Deployments on the stack's node
// for the management cluster's rotated password and application credential. At the end it deletes
// every order and prints the report (a table, or JSON with -json).
//
//	go run ./hack/soak -duration=30m -faults=30 -seed=1
//
// The exit code is 1 when the run could not be made, or when the report
// shows an application-credential consumer failure (in-process or pod), a
// rejection of a password consumer holding the current password outside the
// rotation window, a leak, an unowned
// OpenBao path or a finalizer left.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

func main() {
	cfg := DefaultConfig()
	var asJSON bool
	var jsonOut string
	var kinds string
	flag.DurationVar(&cfg.Duration, "duration", cfg.Duration, "How long the orders rotate under faults (from the first consumer on).")
	flag.IntVar(&cfg.Faults, "faults", cfg.Faults, "Number of fault events, spread over -duration at seeded random points.")
	flag.Int64Var(&cfg.Seed, `seed`, cfg.Seed, "Random source of the fault schedule (the points and the order of the kinds).")
	flag.StringVar(&kinds, "kinds", strings.Join(cfg.Kinds, ","), "Fault kinds to draw from, comma-separated: "+strings.Join(AllKinds, ", ")+".")
	flag.DurationVar(&cfg.Outage, "apiserver-outage", cfg.Outage, "How long the apiserver stays down in an apiserver fault.")
	flag.BoolVar(&cfg.Pods, "pods", cfg.Pods, "Run consumer pods on the stack's node (authloop Deployments of the management cluster's rotated password and application credential).")
	flag.StringVar(&cfg.Dir, "dir", "", "Stack folder (default: a new temporary folder, removed at the end unless ORDERHUB_KEEP_STACK is set).")
	flag.BoolVar(&cfg.Build, "build", true, "Build bin/orderhub before the run (go build ./cmd/orderhub).")
	flag.BoolVar(&asJSON, "json", false, "Print the report as JSON instead of the table.")
	flag.StringVar(&jsonOut, "json-out", "", "Also write the report as JSON to this file.")
	flag.Parse()
	cfg.Kinds = strings.Split(kinds, ",")
	cfg.Logf = func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%s soak: %s\n", time.Now().UTC().Format("15:04:05"), fmt.Sprintf(format, args...))
	}
	// The soak's own clients log nothing worth reading; the servers log
	// to the stack's folder.
	ctrl.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := Run(ctx, cfg)
	if rep != nil {
		if asJSON {
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(rep)
		} else {
			rep.WriteTable(os.Stdout)
		}
		if jsonOut != "" {
			b, merr := json.MarshalIndent(rep, "", "  ")
			if merr == nil {
				merr = os.WriteFile(jsonOut, append(b, '\n'), 0o644)
			}
			if merr != nil {
				fmt.Fprintf(os.Stderr, "soak: -json-out: %v\n", merr)
			}
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "soak: %v\n", err)
		os.Exit(1)
	}
	if problems := rep.Problems(); len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "soak: %s\n", strings.Join(problems, "; "))
		os.Exit(1)
	}
}
