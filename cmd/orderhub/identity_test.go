package main

import (
	"strings"
	"testing"
	"time"

	"github.com/c5c3/orderhub/controllers/identity"
)

// A sweep-sized RECONCILE_INTERVAL carried over from the old design (30 s)
// does not make the controller re-read Keystone and probe every password
// every 30 s: the floor is used, with a start-up warning that names the
// variable, the value and the floor (docs/identity.md, "Running it").
func TestIdentityResyncFloor(t *testing.T) {
	for _, tc := range []struct {
		name, env  string
		args       []string
		want       time.Duration
		warnSource string // "" : no warning
	}{
		{name: "RECONCILE_INTERVAL=30s raised to the floor", env: "30s", want: identity.MinResync, warnSource: "RECONCILE_INTERVAL=30s"},
		{name: "RECONCILE_INTERVAL=30 (seconds) raised to the floor", env: "30", want: identity.MinResync, warnSource: "RECONCILE_INTERVAL=30s"},
		{name: "--resync-period=1m raised to the floor", env: "", args: []string{"--resync-period=1m"}, want: identity.MinResync, warnSource: "--resync-period=1m0s"},
		{name: "the floor itself", env: "5m", want: identity.MinResync},
		{name: "above the floor", env: "600", want: 10 * time.Minute},
		{name: "default", env: "", want: identity.DefaultResync},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envReconcileInterval, tc.env)
			f, err := parseIdentityFlags(append([]string{"--namespace=openstack"}, tc.args...))
			if err != nil {
				t.Fatal(err)
			}
			if f.opts.Resync != tc.want {
				t.Errorf("resync period %s, want %s", f.opts.Resync, tc.want)
			}
			if f.opts.ProbeInterval != identity.MinResync {
				t.Errorf("probe interval %s, want the floor %s", f.opts.ProbeInterval, identity.MinResync)
			}
			switch {
			case tc.warnSource == "" && f.resyncRaised != "":
				t.Errorf("unexpected warning %q", f.resyncRaised)
			case tc.warnSource != "" && (!strings.Contains(f.resyncRaised, tc.warnSource) || !strings.Contains(f.resyncRaised, "5m0s")):
				t.Errorf("warning %q: want it to name %s and the floor 5m0s", f.resyncRaised, tc.warnSource)
			}
		})
	}
}
