//go:build integration

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// parentChartKeys are the root values Helm adds when the chart is a
// dependency of a parent chart: global (copied from the parent) and enabled
// (the dependency's condition). values.schema.json accepts them, and
// values.yaml does not carry them (charts/orderhub/README.md, "As a
// dependency").
var parentChartKeys = []string{"enabled", "global"}

// umbrellaValues are a parent chart's values: globals of the kind parent
// charts share, and the orderhub dependency switched on with identity off.
const umbrellaValues = `global:
  imageRegistry: registry.example.org
  labels:
    team: platform
orderhub:
  enabled: true
  identity:
    enabled: false
`

// TestIntegration_Chart_AsDependency renders a parent chart with orderhub as
// a dependency under condition orderhub.enabled and global values, the way
// Flux and Argo CD umbrella charts install it: with enabled true it renders
// orderhub's CRDs and controllers, with the parent's values for orderhub
// applied; with enabled false it renders none of them.
func TestIntegration_Chart_AsDependency(t *testing.T) {
	dir := umbrellaChart(t)
	objs := mustTemplateDir(t, dir)
	if n, want := len(ofKind(objs, "CustomResourceDefinition")), len(baseCRDs(t)); n != want {
		t.Errorf("the parent chart renders %d CRDs, config/crd/bases has %d", n, want)
	}
	for _, c := range []string{"hub", "topology"} {
		if find(objs, "Deployment", "umbrella-orderhub-"+c) == nil {
			t.Errorf("the parent chart renders no Deployment umbrella-orderhub-%s", c)
		}
	}
	if find(objs, "Deployment", "umbrella-orderhub-identity") != nil {
		t.Errorf("orderhub.identity.enabled=false in the parent's values did not reach the chart")
	}
	if objs := mustTemplateDir(t, dir, "orderhub.enabled=false"); len(objs) != 0 {
		t.Errorf("with orderhub.enabled=false the parent chart renders %d objects, first %s %s", len(objs), objs[0].Kind, objs[0].Name)
	}
	// Alone, the chart takes both keys too, and still checks their types.
	if _, err := helmTemplate(t, "global.team=platform", "enabled=true"); err != nil {
		t.Errorf("the chart refuses global and enabled: %v", err)
	}
	if _, err := helmTemplate(t, "enabled=yes"); err == nil || !strings.Contains(err.Error(), "enabled") {
		t.Errorf("enabled=yes (a string) is accepted: %v", err)
	}
}

// umbrellaChart writes a parent chart into a temporary directory: its
// Chart.yaml names orderhub as a dependency (file:// this repository's chart,
// copied into charts/ as helm dependency build would) under the condition
// orderhub.enabled, and its values are umbrellaValues. It has no templates.
func umbrellaChart(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "umbrella")
	if err := os.CopyFS(filepath.Join(dir, "charts", "orderhub"), os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	chart := "apiVersion: v2\nname: umbrella\nversion: 1.0.0\ndependencies:\n" +
		"  - name: orderhub\n    version: \"*\"\n    repository: file://" + src + "\n    condition: orderhub.enabled\n"
	for name, body := range map[string]string{"Chart.yaml": chart, "values.yaml": umbrellaValues} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// mustTemplateDir renders the chart in dir as release umbrella with the given
// --set values.
func mustTemplateDir(t *testing.T, dir string, sets ...string) []rendered {
	t.Helper()
	args := []string{"template", "umbrella", dir, "--namespace", "orderhub-system"}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(helmBin(t), args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return parseObjects(t, stdout.Bytes())
}
