//go:build integration

package consumers

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// logPanels logs, for one order, what each panel of the chart's dashboard
// (docs/reference/metrics.md, "Dashboard") reads from the hub's metrics at
// now, gathered from the in-process registry the reconcilers write; it
// returns the order's orderhub_credential_rotations_total (0 when absent).
func logPanels(t *testing.T, kind, namespace, name string) float64 {
	t.Helper()
	fams, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		byName[f.GetName()] = f
	}
	order := map[string]string{"kind": kind, "namespace": namespace, "name": name, "cluster": ""}
	value := func(metric string) string {
		for _, m := range matching(byName[metric], order) {
			switch {
			case m.GetGauge() != nil:
				return fmt.Sprint(m.GetGauge().GetValue())
			case m.GetCounter() != nil:
				return fmt.Sprint(m.GetCounter().GetValue())
			}
		}
		return "absent"
	}
	untilNow := func(metric string) string {
		for _, m := range matching(byName[metric], order) {
			return time.Until(time.Unix(int64(m.GetGauge().GetValue()), 0)).Round(time.Second).String()
		}
		return "absent"
	}
	notReady := map[string]int{}
	for _, m := range matching(byName["orderhub_order_ready"], nil) {
		if m.GetGauge().GetValue() == 0 {
			notReady[label(m, "kind")+"/"+label(m, "reason")]++
		}
	}
	requests := map[string]float64{}
	for _, m := range matching(byName["orderhub_backend_requests_total"], map[string]string{"backend": "keystone"}) {
		requests[label(m, "outcome")] = m.GetCounter().GetValue()
	}
	p95 := "absent"
	for _, m := range matching(byName["orderhub_credential_rotation_duration_seconds"], map[string]string{"kind": kind}) {
		p95 = fmt.Sprintf("%.1fs of %d rotations", quantile(0.95, m.GetHistogram()), m.GetHistogram().GetSampleCount())
	}
	t.Logf("dashboard, %s %s/%s:", kind, namespace, name)
	t.Logf("  Orders not Ready by kind and reason: %v", sorted(notReady))
	t.Logf("  Rotations and failed rotations: %s rotations, %s failed", value("orderhub_credential_rotations_total"),
		value("orderhub_credential_rotation_failures_total"))
	t.Logf("  Credential expiry per order (time left): %s", untilNow("orderhub_credential_expiration_timestamp_seconds"))
	t.Logf("  Next rotation per order: %s", untilNow("orderhub_credential_next_rotation_timestamp_seconds"))
	t.Logf("  Rotation duration (95th percentile): %s", p95)
	t.Logf("  Keystone requests by outcome (totals): %v", requests)
	t.Logf("  Consumers not rolled out per order: %s", value("orderhub_consumers_pending"))
	t.Logf("  Superseded credentials revoked before rollout: %s", value("orderhub_credential_revoked_before_rollout_total"))
	for _, m := range matching(byName["orderhub_credential_rotations_total"], order) {
		return m.GetCounter().GetValue()
	}
	return 0
}

// matching is f's series carrying every label of want (nil: all).
func matching(f *dto.MetricFamily, want map[string]string) []*dto.Metric {
	var out []*dto.Metric
next:
	for _, m := range f.GetMetric() {
		for k, v := range want {
			if label(m, k) != v {
				continue next
			}
		}
		out = append(out, m)
	}
	return out
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// quantile interpolates q linearly inside the cumulative bucket that holds
// it, as PromQL's histogram_quantile does
// (https://prometheus.io/docs/prometheus/latest/querying/functions/#histogram_quantile).
func quantile(q float64, h *dto.Histogram) float64 {
	rank := q * float64(h.GetSampleCount())
	lower, below := 0.0, 0.0
	for _, b := range h.GetBucket() {
		n := float64(b.GetCumulativeCount())
		if n >= rank {
			if n == below {
				return b.GetUpperBound()
			}
			return lower + (b.GetUpperBound()-lower)*(rank-below)/(n-below)
		}
		lower, below = b.GetUpperBound(), n
	}
	return lower
}

func sorted(m map[string]int) string {
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
