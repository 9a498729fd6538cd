//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// scrape reads the manager's metrics endpoint over HTTP.
func scrape(ctx context.Context) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metricsURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", metricsURL, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// series returns the value of family name's series whose labels include
// want; ok is false when there is none.
func series(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		switch {
		case m.GetGauge() != nil:
			return m.GetGauge().GetValue(), true
		case m.GetCounter() != nil:
			return m.GetCounter().GetValue(), true
		case m.GetHistogram() != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

// orderSeries is the per-order labels of an application credential's series.
func orderSeries(ns, name string) map[string]string {
	return map[string]string{"kind": orders.KindKeystoneApplicationCredential, "cluster": "", "namespace": ns, "name": name}
}

// scrapeSeries scrapes the endpoint once and reads series(name, labels).
func scrapeSeries(name string, labels map[string]string) (float64, bool, error) {
	fams, err := scrape(context.Background())
	if err != nil {
		return 0, false, err
	}
	v, ok := series(fams, name, labels)
	return v, ok, nil
}

// expectSeries waits until the scraped series of name with labels reads v.
func expectSeries(t *testing.T, name string, labels map[string]string, v float64) {
	t.Helper()
	eventually(t, waitTimeout, fmt.Sprintf("%s%v = %v", name, labels, v), func() error {
		got, ok, err := scrapeSeries(name, labels)
		if err != nil {
			return err
		}
		if !ok || got != v {
			return fmt.Errorf("%s%v: %v (present %v)", name, labels, got, ok)
		}
		return nil
	})
}

// TestIntegration_ApplicationCredential_Metrics scrapes the metrics
// endpoint: the expiry gauge is Keystone's expires_at of the delivered
// credential, before and after a rotation; next rotation, Ready, the
// rotation counter and the duration histogram follow; the series go with
// the order (docs/reference/metrics.md).
func TestIntegration_ApplicationCredential_Metrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	planeReady(t)
	const ns = "tenant-metrics"
	ensureNamespace(t, ns)
	w := newWorld(t, ns, "metrics")
	w.grantRole(t)
	ac := w.order("metrics-appcred", 10*time.Minute, 2*time.Second)
	create(t, ac)
	lbl := orderSeries(ns, ac.Name)
	with := func(k, v string) map[string]string {
		out := map[string]string{k: v}
		for a, b := range lbl {
			out[a] = b
		}
		return out
	}

	checkExpiry := func(gen int64) {
		t.Helper()
		id := generationReady(t, ac, gen)
		kc, err := applicationcredentials.Get(ctx, identity, w.userID, id).Extract()
		if err != nil {
			t.Fatal(err)
		}
		if kc.ExpiresAt.IsZero() {
			t.Fatalf("Keystone reports no expiry for %s", id)
		}
		expectSeries(t, "orderhub_credential_expiration_timestamp_seconds", lbl, float64(kc.ExpiresAt.Unix()))
		next := get(t, ac).Status.NextRotation
		expectSeries(t, "orderhub_credential_next_rotation_timestamp_seconds", lbl, float64(next.Unix()))
		expectSeries(t, "orderhub_order_ready", with("reason", c5c3v1alpha1.ReasonAllReady), 1)
	}
	checkExpiry(1)
	expectSeries(t, "orderhub_credential_rotation_failing", lbl, 0)
	expectSeries(t, "orderhub_credential_grace_period_seconds", lbl, 2)

	raise(t, ac, 2)
	checkExpiry(2)
	expectSeries(t, "orderhub_credential_rotations_total", lbl, 1)
	fams, err := scrape(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := series(fams, "orderhub_credential_rotation_duration_seconds", map[string]string{"kind": orders.KindKeystoneApplicationCredential}); !ok || n < 1 {
		t.Errorf("rotation duration histogram: %v observations (present %v), want at least 1", n, ok)
	}

	deleteAndWaitGone(t, ac)
	eventually(t, waitTimeout, "the order's series are gone", func() error {
		fams, err := scrape(ctx)
		if err != nil {
			return err
		}
		for _, name := range []string{"orderhub_order_ready", "orderhub_credential_expiration_timestamp_seconds",
			"orderhub_credential_rotations_total"} {
			if v, ok := series(fams, name, lbl); ok {
				return fmt.Errorf("%s still reads %v", name, v)
			}
		}
		return nil
	})
}
