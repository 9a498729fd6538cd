package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/controllers/topology"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

func init() {
	subcommands["topology"] = subcommand{summary: "rabbitmq.osh.openstack.org: RabbitMQ topology objects", run: runTopology}
}

// Environment fallbacks of the topology flags (docs/topology.md).
const (
	envDeleteGuest = "RABBITMQ_TOPOLOGY_CONTROLLER_DELETE_GUEST_USER"
	envNamespace   = "POD_NAMESPACE"
)

// runTopology starts the topology manager: the seven rabbitmq.osh.openstack.org
// controllers against the broker named by the RABBITMQ_* environment.
func runTopology(args []string) error {
	var mf managerFlags
	var resync, guestInterval, timeout time.Duration
	var deleteGuest bool
	var concurrency int
	fs := flag.NewFlagSet("topology", flag.ContinueOnError)
	mf.register(fs, "topology")
	defResync, err := envDuration(envReconcileInterval, 10*time.Minute)
	if err != nil {
		return err
	}
	fs.DurationVar(&resync, "resync-period", defResync, "Declare every resource again after this long without a request, repairing out-of-band changes "+
		"(default from $"+envReconcileInterval+", seconds or a duration).")
	fs.BoolVar(&deleteGuest, "delete-guest-user", envBool(envDeleteGuest), "Delete the RabbitMQ user guest every --guest-interval (env "+envDeleteGuest+").")
	fs.DurationVar(&guestInterval, "guest-interval", 30*time.Second, "How often the guest user is deleted when --delete-guest-user is set.")
	fs.DurationVar(&timeout, "request-timeout", 30*time.Second, "Timeout of one management API request.")
	fs.IntVar(&concurrency, "concurrency", topology.DefaultConcurrency, "Resources of one kind reconciled in parallel.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if mf.version {
		return printVersion()
	}
	if mf.namespace == "" {
		mf.namespace = os.Getenv(envNamespace)
	}
	if mf.namespace == "" {
		return fmt.Errorf("--namespace (or %s) is required: the topology controller serves its own namespace", envNamespace)
	}
	cfg, err := rabbitmq.ConfigFromEnv()
	if err != nil {
		return err
	}
	cfg.Timeout = timeout
	broker, err := rabbitmq.NewClient(cfg, nil)
	if err != nil {
		return err
	}
	scheme, err := newScheme(rmqv1.AddToScheme)
	if err != nil {
		return err
	}
	mf.lockTarget = []string{mf.namespace, cfg.Endpoint(), cfg.ClusterName} // one Lease per broker served (lease.go)
	mgr, err := mf.newManager("topology", scheme, withoutManagedFields)
	if err != nil {
		return err
	}
	ctx := ctrl.SetupSignalHandler()
	if _, err := topology.SetupWithManager(context.Background(), mgr, topology.Options{
		Broker: broker, ClusterName: cfg.ClusterName, Namespace: mf.namespace,
		ResyncPeriod: resync, DeleteGuestUser: deleteGuest, GuestInterval: guestInterval,
		MaxConcurrentReconciles: concurrency,
	}); err != nil {
		return err
	}
	ctrl.Log.WithName("topology").Info("serving RabbitMQ topology", "broker", cfg.Endpoint(), "cluster", cfg.ClusterName, "namespace", mf.namespace)
	return mgr.Start(ctx)
}

func envBool(name string) bool {
	b, _ := strconv.ParseBool(os.Getenv(name))
	return b
}
