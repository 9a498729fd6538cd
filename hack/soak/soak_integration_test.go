//go:build integration

package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// TestIntegration_Soak_ThreeFaults is the soak's short variant
// (docs/soak.md): three faults (a SIGKILLed hub, a SIGKILLed K-ORC, a
// restarted OpenBao-compatible server) over three minutes of
// a password rotated every minute and two application credentials rotating
// every minute with a 30 s grace period, one on a target cluster. It asserts
// what the hub promises a consumer (docs/reference/keystoneapplicationcredential.md,
// "Delivered Secret contract": the delivered credential is never invalid):
// no application-credential consumer is ever refused, no password consumer
// outside the rotation's re-read window, nothing leaks in Keystone or
// OpenBao, and every order deletes without a finalizer left.
//
// It runs in `make test`; `make soak-short` runs it alone.
func TestIntegration_Soak_ThreeFaults(t *testing.T) {
	ctrl.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	cfg := DefaultConfig()
	cfg.Duration = 3 * time.Minute
	cfg.Faults = 3
	// The faults that stop rotations for less than the grace period; the
	// longer ones (Keystone, the apiserver outage) are the long run's
	// (docs/soak.md, "Short variant").
	cfg.Kinds = []string{FaultHub, FaultKORC, FaultOpenBao}
	cfg.Seed = 3
	// No consumer pods here: the node's start and the pods' load on the
	// stack's Keystone are the long run's (docs/soak.md, "Short variant").
	cfg.Pods = false
	cfg.Build = false // `make test` builds bin/orderhub first; Run builds it when missing
	cfg.Logf = t.Logf
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	rep, err := Run(ctx, cfg)
	if rep != nil {
		var b strings.Builder
		rep.WriteTable(&b)
		t.Log(b.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Faults) != 3 {
		t.Errorf("%d faults injected, want 3", len(rep.Faults))
	}
	for _, f := range rep.Faults {
		if f.Error != "" {
			t.Errorf("fault %s: %s", f.Kind, f.Error)
		}
	}
	for _, c := range rep.Consumers {
		if c.Attempts == 0 {
			t.Errorf("consumer %s never ran", c.Secret)
		}
	}
	for _, p := range rep.Pods {
		if p.Pods == 0 || p.Requests == 0 {
			t.Errorf("pods of %s: %d pods, %d token requests", p.Workload, p.Pods, p.Requests)
		}
	}
	for _, p := range rep.Problems() {
		t.Error(p)
	}
}
