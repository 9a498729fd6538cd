package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
)

// Sets and runners.
const (
	setProjects = "projects"
	setCinder   = "cinder"
	setTopology = "topology"

	runnerFloor     = "floor"
	runnerKubeFloor = "kube-floor"
	runnerOrderhub  = "orderhub"
	runnerKORC      = "k-orc"
	runnerMTO       = "mto"
	runnerCLI       = "cli"
)

// Metric keys (the JSON names; units in the name).
const (
	mApplyReady    = "apply_ready_s"
	mBackendApply  = "backend_req_per_object"
	mBackendSteady = "steady_req_per_object"
	mKubeWrites    = "apiserver_writes_per_object"
	mRSS           = "rss_peak_mib"
	mCPU           = "cpu_apply_s"
	mDelete        = "delete_s"
)

// runnerLabel is how the table names a runner in a set.
func runnerLabel(set, runner string) string {
	switch runner {
	case runnerFloor:
		if set == setTopology {
			return "broker floor (sequential requests, 1 connection)"
		}
		return "Keystone floor (sequential POSTs, 1 connection)"
	case runnerKubeFloor:
		return "Kubernetes floor (create + 1 status write, no controller)"
	case runnerOrderhub:
		if set == setTopology {
			return "orderhub topology"
		}
		return "orderhub identity"
	case runnerKORC:
		return "K-ORC v2.6.0"
	case runnerMTO:
		return "messaging-topology-operator v1.20.1"
	case runnerCLI:
		return "openstack CLI, one process per call"
	}
	return runner
}

// result is one runner timed on one set.
type result struct {
	Set     string `json:"set"`
	Runner  string `json:"runner"`
	Objects int    `json:"objects"`
	// Metrics holds what was measured, by the m* keys; a key is absent
	// where it does not apply (a floor has no process).
	Metrics map[string]float64 `json:"metrics"`
	Note    string             `json:"note,omitempty"`
}

func (r result) summary() string {
	keys := make([]string, 0, len(r.Metrics))
	for k := range r.Metrics {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%.3g", k, r.Metrics[k]))
	}
	return fmt.Sprintf("%d objects, %s", r.Objects, strings.Join(parts, " "))
}

// median is the median of xs (the mean of the middle two for an even count).
func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// medians folds the runs of every (set, runner) into one result holding the
// median of each metric, in first-seen order.
func medians(runs []result) []result {
	type key struct{ set, runner string }
	var order []key
	groups := map[key][]result{}
	for _, r := range runs {
		k := key{r.Set, r.Runner}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []result
	for _, k := range order {
		g := groups[k]
		m := result{Set: k.set, Runner: k.runner, Objects: g[0].Objects, Note: g[0].Note, Metrics: map[string]float64{}}
		vals := map[string][]float64{}
		for _, r := range g {
			for name, v := range r.Metrics {
				vals[name] = append(vals[name], v)
			}
		}
		for name, vs := range vals {
			m.Metrics[name] = median(vs)
		}
		out = append(out, m)
	}
	return out
}

// ratios returns apply→Ready of r divided by the set's floor (for topology
// the larger of the broker and the Kubernetes floor) and by orderhub's;
// NaN where either is missing.
func ratios(set []result, r result) (xFloor, xOrderhub float64) {
	floor, oh := math.NaN(), math.NaN()
	for _, o := range set {
		v, ok := o.Metrics[mApplyReady]
		if !ok {
			continue
		}
		switch o.Runner {
		case runnerFloor, runnerKubeFloor:
			if math.IsNaN(floor) || v > floor {
				floor = v
			}
		case runnerOrderhub:
			oh = v
		}
	}
	v, ok := r.Metrics[mApplyReady]
	if !ok {
		return math.NaN(), math.NaN()
	}
	return v / floor, v / oh
}

func bySet(res []result) (sets []string, m map[string][]result) {
	m = map[string][]result{}
	for _, r := range res {
		if _, ok := m[r.Set]; !ok {
			sets = append(sets, r.Set)
		}
		m[r.Set] = append(m[r.Set], r)
	}
	return sets, m
}

// setTitle describes a set for the table.
func setTitle(set string, n int) string {
	switch set {
	case setProjects:
		return fmt.Sprintf("identity, %d Projects", n)
	case setCinder:
		return "identity, the Cinder set (config/samples/identity/cinder.yaml: 11 objects; K-ORC: its 10 kinds' objects, no RoleAssignment kind)"
	case setTopology:
		return fmt.Sprintf("topology, 1 exchange + %d queues + %d bindings + vhost, user, permission, policy", n, n)
	}
	return set
}

func cell(m map[string]float64, key, format string) string {
	v, ok := m[key]
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

// writeTable prints one table per set, as Markdown (docs/performance.md
// shows it as printed).
func writeTable(w io.Writer, res []result, n int) {
	sets, m := bySet(res)
	for _, set := range sets {
		fmt.Fprintf(w, "\n%s\n\n", setTitle(set, n))
		tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
		fmt.Fprintln(tw, "| runner\t| objects\t| apply→Ready s\t| ms/object\t| × floor\t| × orderhub\t| backend req/object\t| steady req/object\t| apiserver writes/object\t| RSS peak MiB\t| CPU s (apply)\t| delete s\t| note\t|")
		fmt.Fprintln(tw, "|---\t|---:\t|---:\t|---:\t|---:\t|---:\t|---:\t|---:\t|---:\t|---:\t|---:\t|---:\t|---\t|")
		for _, r := range m[set] {
			xf, xo := ratios(m[set], r)
			perObj := map[string]float64{}
			if v, ok := r.Metrics[mApplyReady]; ok && r.Objects > 0 {
				perObj["x"] = v * 1000 / float64(r.Objects)
			}
			fmt.Fprintf(tw, "| %s\t| %d\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t|\n",
				runnerLabel(set, r.Runner), r.Objects, cell(r.Metrics, mApplyReady, "%.1f"), cell(perObj, "x", "%.1f"),
				cell(map[string]float64{"x": xf}, "x", "%.2f"), cell(map[string]float64{"x": xo}, "x", "%.2f"),
				cell(r.Metrics, mBackendApply, "%.2f"), cell(r.Metrics, mBackendSteady, "%.2f"), cell(r.Metrics, mKubeWrites, "%.2f"),
				cell(r.Metrics, mRSS, "%.0f"), cell(r.Metrics, mCPU, "%.1f"), cell(r.Metrics, mDelete, "%.1f"), r.Note)
		}
		tw.Flush()
	}
}

// jsonLine is one line of -json output.
type jsonLine struct {
	Kind string `json:"kind"` // "run" (one repeat) or "median"
	result
	Repeat    int      `json:"repeat,omitempty"`
	N         int      `json:"n"`
	XFloor    *float64 `json:"x_floor,omitempty"`
	XOrderhub *float64 `json:"x_orderhub,omitempty"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// writeJSON prints every run and every median as JSON lines.
func writeJSON(w io.Writer, runs []result, repeats []int, med []result, n int) error {
	enc := json.NewEncoder(w)
	for i, r := range runs {
		if err := enc.Encode(jsonLine{Kind: "run", result: r, Repeat: repeats[i], N: n}); err != nil {
			return err
		}
	}
	_, m := bySet(med)
	for _, r := range med {
		xf, xo := ratios(m[r.Set], r)
		if err := enc.Encode(jsonLine{Kind: "median", result: r, N: n, XFloor: finite(xf), XOrderhub: finite(xo)}); err != nil {
			return err
		}
	}
	return nil
}
