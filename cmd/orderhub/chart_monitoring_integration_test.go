//go:build integration

package main

// Tests of the chart's monitoring parts (docs/reference/metrics.md): the
// PrometheusRule and the Grafana dashboard ConfigMap, rendered with
// `helm template`, query only what the hub exports (checkPromQL).

import (
	"os"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// promRule is a monitoring.coreos.com/v1 PrometheusRule's spec
// (https://prometheus-operator.dev/docs/api-reference/api/#monitoring.coreos.com/v1.PrometheusRuleSpec),
// decoded strictly: a misspelt field fails.
type promRule struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []struct {
			Alert       string            `json:"alert"`
			Expr        string            `json:"expr"`
			For         string            `json:"for,omitempty"`
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"rules"`
	} `json:"groups"`
}

// alertTemplateFuncs stand in for the functions Prometheus offers alert
// templates (https://prometheus.io/docs/prometheus/latest/configuration/template_reference/),
// and alertTemplateVars is the prelude of variables it defines before each,
// so the annotations parse as templates.
var (
	alertTemplateFuncs = template.FuncMap{"humanize": fmtAny, "humanizeTimestamp": fmtAny}
	alertTemplateVars  = "{{$labels := .Labels}}{{$externalLabels := .ExternalLabels}}{{$externalURL := .ExternalURL}}{{$value := .Value}}"
)

func fmtAny(v any) string { return "" }

func TestIntegration_Chart_PrometheusRule(t *testing.T) {
	objs := mustTemplate(t, "metrics.prometheusRule.enabled=true,metrics.prometheusRule.labels.release=kps,metrics.prometheusRule.annotations.team=idm")
	r := find(objs, "PrometheusRule", "rel-orderhub-hub")
	if r == nil {
		t.Fatal("no PrometheusRule rel-orderhub-hub")
	}
	md := r.Raw["metadata"].(map[string]any)
	if md["labels"].(map[string]any)["release"] != "kps" || md["annotations"].(map[string]any)["team"] != "idm" {
		t.Errorf("labels or annotations knob not applied: %v", md)
	}
	spec, err := yaml.Marshal(r.Raw["spec"])
	if err != nil {
		t.Fatal(err)
	}
	var pr promRule
	if err := yaml.UnmarshalStrict(spec, &pr); err != nil {
		t.Fatalf("the PrometheusRule's spec: %v", err)
	}
	exported := exportedMetrics(t)
	var alerts []string
	for _, g := range pr.Groups {
		for _, rule := range g.Rules {
			alerts = append(alerts, rule.Alert)
			for _, err := range checkPromQL(rule.Expr, exported) {
				t.Errorf("%s: %v", rule.Alert, err)
			}
			if rule.For != "" {
				if _, err := model.ParseDuration(rule.For); err != nil {
					t.Errorf("%s: for %q: %v", rule.Alert, rule.For, err)
				}
			}
			if rule.Labels["severity"] == "" || rule.Annotations["summary"] == "" {
				t.Errorf("%s: no severity label or summary", rule.Alert)
			}
			for k, a := range rule.Annotations {
				if _, err := template.New(k).Funcs(alertTemplateFuncs).Parse(alertTemplateVars + a); err != nil {
					t.Errorf("%s: annotation %s is not a template: %v", rule.Alert, k, err)
				}
			}
		}
	}
	want := []string{"OrderhubConsumersNotRolledOut", "OrderhubCredentialExpiring", "OrderhubCredentialRotationFailing",
		"OrderhubCredentialRotationFailures", "OrderhubOrderNotReady", "OrderhubSupersededRevokedBeforeRollout"}
	slices.Sort(alerts)
	if !slices.Equal(alerts, want) {
		t.Errorf("alerts %q, want %q", alerts, want)
	}
}

func TestIntegration_Chart_Dashboard(t *testing.T) {
	objs := mustTemplate(t, "metrics.dashboard.enabled=true,metrics.dashboard.namespace=monitoring,metrics.dashboard.annotations.grafana_folder=orderhub")
	o := find(objs, "ConfigMap", "rel-orderhub-hub-dashboard")
	if o == nil {
		t.Fatal("no ConfigMap rel-orderhub-hub-dashboard")
	}
	b, err := yaml.Marshal(o.Raw)
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(b, &cm); err != nil {
		t.Fatal(err)
	}
	// The Grafana sidecar of kube-prometheus-stack loads ConfigMaps labelled grafana_dashboard: "1".
	if cm.Labels["grafana_dashboard"] != "1" || cm.Namespace != "monitoring" || cm.Annotations["grafana_folder"] != "orderhub" {
		t.Errorf("ConfigMap labels %v, namespace %q, annotations %v", cm.Labels, cm.Namespace, cm.Annotations)
	}
	file, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	got := cm.Data["orderhub-orders.json"]
	if strings.TrimSpace(got) != strings.TrimSpace(string(file)) {
		t.Errorf("the ConfigMap does not carry %s", dashboardFile)
	}
	readDashboard(t, []byte(got))
}

// The monitoring parts read the hub's metrics: without them the chart says so.
func TestIntegration_Chart_MonitoringNeedsHubMetrics(t *testing.T) {
	for _, part := range []string{"metrics.prometheusRule.enabled=true", "metrics.dashboard.enabled=true"} {
		for _, off := range []string{"metrics.enabled=false", "hub.enabled=false"} {
			_, err := helmTemplate(t, part+","+off)
			if err == nil || !strings.Contains(err.Error(), "needs metrics.enabled=true and hub.enabled=true") {
				t.Errorf("%s,%s: %v", part, off, err)
			}
		}
	}
	if objs := mustTemplate(t); len(ofKind(objs, "PrometheusRule"))+len(ofKind(objs, "ConfigMap")) != 0 {
		t.Error("a PrometheusRule or dashboard ConfigMap rendered by default")
	}
}
