package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/controllers/identity"
	"github.com/c5c3/orderhub/internal/keystone"
)

func init() {
	subcommands["identity"] = subcommand{summary: "keystone.osh.openstack.org: Keystone identity objects", run: runIdentity}
}

// runIdentity starts the identity manager: the eight keystone.osh.openstack.org
// controllers, reading only their own namespace, with one Keystone session
// from the OS_* environment or clouds.yaml (OS_CLOUD).
func runIdentity(args []string) error {
	return runIdentityContext(ctrl.SetupSignalHandler(), args)
}

// runIdentityContext is runIdentity until ctx is done. Keystone need not be
// reachable at start: the session authenticates when the first resource is
// reconciled, and until it can, every resource reports Ready=False naming the
// endpoint or the admin credential.
func runIdentityContext(ctx context.Context, args []string) error {
	var mf managerFlags
	var opts identity.Options
	fs := flag.NewFlagSet("identity", flag.ContinueOnError)
	mf.register(fs, "identity")
	resync, err := envDuration(envReconcileInterval, identity.DefaultResync)
	if err != nil {
		return err
	}
	fs.DurationVar(&opts.Resync, "resync-period", resync, "Period of the forced resync that re-applies every resource, probes passwords and repairs drift made outside the controller "+
		"(default from $"+envReconcileInterval+", seconds or a duration).")
	fs.DurationVar(&opts.Backoff, "error-backoff", identity.DefaultBackoff, "Delay before a failed resource is retried when its spec.retryInterval is unset.")
	fs.StringVar(&opts.RefName, "keystone-ref-name", identity.DefaultRefName, "The keystoneRef.name this controller serves; resources with an empty keystoneRef are served too.")
	fs.IntVar(&opts.MaxConcurrentReconciles, "concurrency", 4, "Resources of one kind reconciled in parallel.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if mf.version {
		return printVersion()
	}
	if mf.namespace == "" {
		mf.namespace = ownNamespace()
	}
	if mf.namespace == "" {
		return errors.New("no namespace: set --namespace or POD_NAMESPACE (the controller reads its own namespace only)")
	}
	cfg, err := keystone.LoadConfig()
	if err != nil {
		return err
	}
	scheme, err := newScheme(kv1.AddToScheme)
	if err != nil {
		return err
	}
	mgr, err := mf.newManager("identity", scheme, withoutManagedFields)
	if err != nil {
		return err
	}
	sess, err := keystone.NewLazySession(cfg)
	if err != nil {
		return err
	}
	if err := identity.SetupWithManager(mgr, sess, opts); err != nil {
		return fmt.Errorf("set up controllers: %w", err)
	}
	// A first attempt in the background, for the log: start-up (and the
	// health endpoints) never wait for Keystone.
	go func() {
		logger := ctrl.Log.WithName("identity")
		actx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := sess.Connect(actx); err != nil {
			logger.Info("Keystone not ready at start; resources report it and are retried", "keystone", cfg.String(), "error", err.Error())
			return
		}
		logger.Info("Keystone session ready", "keystone", cfg.String(), "namespace", mf.namespace)
	}()
	return mgr.Start(ctx)
}

// ownNamespace is POD_NAMESPACE or the service account's namespace.
func ownNamespace() string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
