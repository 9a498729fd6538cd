//go:build integration

package controlplane

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/c5c3/orderhub/internal/backendmetrics"
)

// keystoneRequests reads orderhub_backend_requests_total{backend="keystone",
// outcome} from controller-runtime's registry, the one the metrics endpoint
// serves (0 when the series does not exist yet).
func keystoneRequests(t *testing.T, outcome string) float64 {
	t.Helper()
	fams, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "orderhub_backend_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			if l["backend"] == backendmetrics.BackendKeystone && l["outcome"] == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// TestIntegration_BackendRequestsCounted: the hub's own token requests to
// the real Keystone are counted by outcome (docs/reference/metrics.md): an
// accepted admin password adds to 2xx, a refused one to 4xx. Other planes of
// the suite may add to both meanwhile, so the counts are asserted to grow.
func TestIntegration_BackendRequestsCounted(t *testing.T) {
	ks := stack.Keystone
	req := TokenRequest{AuthURL: ks.URL, User: ks.AdminUser, Password: ks.AdminPassword, Domain: ks.AdminUserDomain,
		Project: ks.AdminProject, Region: ks.Region}

	ok := keystoneRequests(t, backendmetrics.Outcome2xx)
	if err := (KeystoneVerifier{}).Verify(context.Background(), req); err != nil {
		t.Fatalf("admin token request: %v", err)
	}
	if got := keystoneRequests(t, backendmetrics.Outcome2xx); got <= ok {
		t.Errorf("keystone 2xx requests %v after an accepted token request, %v before", got, ok)
	}

	refused := keystoneRequests(t, backendmetrics.Outcome4xx)
	req.Password = "not-" + ks.AdminPassword
	if err := (KeystoneVerifier{}).Verify(context.Background(), req); err == nil {
		t.Fatal("a wrong admin password was accepted")
	}
	if got := keystoneRequests(t, backendmetrics.Outcome4xx); got <= refused {
		t.Errorf("keystone 4xx requests %v after a refused token request, %v before", got, refused)
	}
}
