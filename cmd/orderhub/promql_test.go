package main

// Checks of the PromQL the chart ships (the PrometheusRule and the Grafana
// dashboard): every expression parses with Prometheus' own parser
// (github.com/prometheus/prometheus/promql/parser) and names only metrics and
// labels the hub registers, so renaming a metric in
// controllers/hub/orders/metrics.go fails here.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/prometheus/promql/parser"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/internal/backendmetrics"
)

// exportedMetrics records one series of every hub order metric through the
// functions the reconcilers call, then gathers controller-runtime's registry
// (what the metrics endpoint serves): series name -> label names. A
// histogram contributes its _bucket (with le), _sum and _count series.
func exportedMetrics(t *testing.T) map[string][]string {
	t.Helper()
	o := orders.Order{Kind: "KeystoneApplicationCredential", Namespace: "promql-test", Name: "probe"}
	now := time.Now()
	orders.RecordReady(o, nil)
	orders.RecordCredential(o, orders.CredentialMetrics{ExpiresAt: &now, NextRotation: &now, GracePeriod: time.Hour, Failing: true})
	orders.RecordRotation(o)
	orders.RecordRotationFailure(o)
	orders.ObserveRotationDuration(o.Kind, time.Second)
	orders.RecordConsumersPending(o, 1)
	orders.RecordRevokedBeforeRollout(o)
	t.Cleanup(func() { orders.ForgetMetrics(o) })
	// One round trip through the hub's counting transport (failing here,
	// without a server) makes orderhub_backend_requests_total gatherable.
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:0/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := backendmetrics.Transport(backendmetrics.BackendKeystone, refusingTransport{}).RoundTrip(req); err == nil {
		t.Fatal("the refusing transport answered")
	}

	fams, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, f := range fams {
		var labels []string
		for _, l := range f.GetMetric()[0].GetLabel() {
			labels = append(labels, l.GetName())
		}
		out[f.GetName()] = labels
		if f.GetType() == dto.MetricType_HISTOGRAM {
			out[f.GetName()+"_bucket"] = append(slices.Clone(labels), "le")
			out[f.GetName()+"_sum"] = labels
			out[f.GetName()+"_count"] = labels
		}
	}
	if _, ok := out["orderhub_order_ready"]; !ok {
		t.Fatalf("orderhub_order_ready not gathered from the registry: %v", out)
	}
	return out
}

// refusingTransport fails every round trip without a response.
type refusingTransport struct{}

func (refusingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("refused")
}

// grafanaVars are the Grafana variables the dashboard's expressions use,
// replaced by a value of their kind before parsing.
var grafanaVars = strings.NewReplacer("$__rate_interval", "5m", "$namespace", ".*")

// checkPromQL parses expr and returns what is wrong with it: a parse error,
// no metric named, a metric the hub does not export, or a label (in a
// matcher, by/without or on/ignoring) that none of the expression's metrics
// carries.
func checkPromQL(expr string, exported map[string][]string) []error {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(grafanaVars.Replace(expr))
	if err != nil {
		return []error{fmt.Errorf("%q does not parse: %v", expr, err)}
	}
	var errs []error
	var names, labels []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		switch n := n.(type) {
		case *parser.VectorSelector:
			names = append(names, n.Name)
			for _, m := range n.LabelMatchers {
				if m.Name != "__name__" {
					labels = append(labels, m.Name)
				}
			}
		case *parser.AggregateExpr:
			labels = append(labels, n.Grouping...)
		case *parser.BinaryExpr:
			if n.VectorMatching != nil {
				labels = append(labels, n.VectorMatching.MatchingLabels...)
				labels = append(labels, n.VectorMatching.Include...)
			}
		}
		return nil
	})
	if len(names) == 0 {
		errs = append(errs, fmt.Errorf("%q names no metric", expr))
	}
	var carried []string
	for _, n := range names {
		l, ok := exported[n]
		if !ok {
			errs = append(errs, fmt.Errorf("%q: metric %s is not exported by the hub", expr, n))
		}
		carried = append(carried, l...)
	}
	for _, l := range labels {
		if !slices.Contains(carried, l) {
			errs = append(errs, fmt.Errorf("%q: label %s is on none of its metrics %v", expr, l, names))
		}
	}
	return errs
}

const dashboardFile = "../../charts/orderhub/files/dashboards/orderhub-orders.json"

// dashboard is the part of a Grafana dashboard the checks read.
type dashboard struct {
	Title      string `json:"title"`
	UID        string `json:"uid"`
	Templating struct {
		List []struct {
			Name       string `json:"name"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		Title       string `json:"title"`
		Description string `json:"description"`
		Targets     []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

func readDashboard(t *testing.T, b []byte) dashboard {
	t.Helper()
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	if d.Title == "" || d.UID == "" || len(d.Panels) == 0 {
		t.Fatalf("the dashboard has no title, uid or panels: %+v", d)
	}
	return d
}

// labelValuesMetric is the metric of a Grafana label_values(metric, label) query.
var labelValuesMetric = regexp.MustCompile(`^label_values\(([a-zA-Z_:][a-zA-Z0-9_:]*), *([a-zA-Z_][a-zA-Z0-9_]*)\)$`)

// TestDashboard_PanelsQueryExportedMetrics: every panel of the shipped
// dashboard has a description and queries, each parsing and naming only
// exported metrics and labels; so does each variable's label_values query.
func TestDashboard_PanelsQueryExportedMetrics(t *testing.T) {
	b, err := os.ReadFile(filepath.Clean(dashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	d := readDashboard(t, b)
	exported := exportedMetrics(t)
	for _, p := range d.Panels {
		if p.Description == "" || len(p.Targets) == 0 {
			t.Errorf("panel %q: no description or no query", p.Title)
		}
		for _, q := range p.Targets {
			for _, err := range checkPromQL(q.Expr, exported) {
				t.Errorf("panel %q: %v", p.Title, err)
			}
		}
	}
	for _, v := range d.Templating.List {
		if v.Definition == "" {
			continue
		}
		m := labelValuesMetric.FindStringSubmatch(v.Definition)
		if m == nil || !slices.Contains(exported[m[1]], m[2]) {
			t.Errorf("variable %s: %q is not label_values of an exported metric and its label", v.Name, v.Definition)
		}
	}
}

// TestCheckPromQL_Refuses: the check itself fails on what it must refuse.
func TestCheckPromQL_Refuses(t *testing.T) {
	exported := exportedMetrics(t)
	for _, expr := range []string{
		"orderhub_order_ready == 0",
		"sum by (le, kind) (rate(orderhub_credential_rotation_duration_seconds_bucket[5m]))",
	} {
		if errs := checkPromQL(expr, exported); len(errs) != 0 {
			t.Errorf("%q refused: %v", expr, errs)
		}
	}
	for _, expr := range []string{
		"orderhub_order_ready ==",                      // does not parse
		"orderhub_orders_ready == 0",                   // not exported
		"count by (phase) (orderhub_order_ready)",      // no such label
		`orderhub_credential_rotations_total{pod="x"}`, // no such label
		"time()", // names no metric
	} {
		if errs := checkPromQL(expr, exported); len(errs) == 0 {
			t.Errorf("%q accepted", expr)
		}
	}
}
