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

// runIdentity starts the identity manager: the keystone.osh.openstack.org
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
	f, err := parseIdentityFlags(args)
	if err != nil {
		return err
	}
	if f.manager.version {
		return printVersion()
	}
	mf, opts := f.manager, f.opts
	cfg, err := keystone.LoadConfig()
	if err != nil {
		return err
	}
	// One Lease per Keystone served (lease.go).
	mf.lockTarget = []string{mf.namespace, opts.RefName, strings.TrimRight(cfg.AuthURL, "/")}
	scheme, err := newScheme(kv1.AddToScheme)
	if err != nil {
		return err
	}
	mgr, err := mf.newManager("identity", scheme, withoutManagedFields)
	if err != nil {
		return err
	}
	if f.resyncRaised != "" {
		ctrl.Log.WithName("identity").Info("WARNING: "+f.resyncRaised, "resyncPeriod", opts.Resync.String())
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

// identityFlags are the parsed flags of `orderhub identity`.
type identityFlags struct {
	manager managerFlags
	opts    identity.Options
	// resyncRaised is the start-up warning when the requested resync period
	// was below identity.MinResync and the floor is used instead; empty
	// otherwise.
	resyncRaised string
}

// parseIdentityFlags parses args and the environment (RECONCILE_INTERVAL,
// POD_NAMESPACE). A resync period below identity.MinResync is raised to it,
// with a warning naming where the value came from (docs/identity.md,
// "Running it"); a namespace is required.
func parseIdentityFlags(args []string) (identityFlags, error) {
	var f identityFlags
	fs := flag.NewFlagSet("identity", flag.ContinueOnError)
	f.manager.register(fs, "identity")
	resync, err := envDuration(envReconcileInterval, identity.DefaultResync)
	if err != nil {
		return f, err
	}
	fs.DurationVar(&f.opts.Resync, "resync-period", resync, "Period of the forced resync that re-applies every resource, probes passwords and repairs drift made outside the controller "+
		"(default from $"+envReconcileInterval+", seconds or a duration; at least "+identity.MinResync.String()+": a shorter one is raised to it, with a warning).")
	fs.DurationVar(&f.opts.Backoff, "error-backoff", identity.DefaultBackoff, "Delay before a failed resource is retried when its spec.retryInterval is unset.")
	fs.StringVar(&f.opts.RefName, "keystone-ref-name", identity.DefaultRefName, "The keystoneRef.name this controller serves; resources with an empty keystoneRef are served too.")
	fs.IntVar(&f.opts.MaxConcurrentReconciles, "concurrency", 4, "Resources of one kind reconciled in parallel.")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if f.manager.version {
		return f, nil // runIdentityContext prints the version and exits
	}
	if f.manager.namespace == "" {
		f.manager.namespace = ownNamespace()
	}
	if f.manager.namespace == "" {
		return f, errors.New("no namespace: set --namespace or POD_NAMESPACE (the controller reads its own namespace only)")
	}
	requested := f.opts.Resync
	var raised bool
	if f.opts.Resync, raised = identity.FloorResync(requested); raised {
		f.resyncRaised = fmt.Sprintf("%s=%s is below the floor of %s; the forced resync (and the password probe) runs every %s",
			resyncSource(fs), requested, identity.MinResync, identity.MinResync)
	}
	f.opts.ProbeInterval = identity.MinResync
	return f, nil
}

// resyncSource names where the resync period came from: the flag when set,
// else the environment variable.
func resyncSource(fs *flag.FlagSet) string {
	src := envReconcileInterval
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "resync-period" {
			src = "--resync-period"
		}
	})
	return src
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
