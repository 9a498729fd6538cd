package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
)

// Sets and runners.
const (
	setProjects = "projects"
	setCinder   = "cinder"
	setTopology = "topology"
	setHub      = "hub"
	// setLogins is the cost of one hashing login (logincost.go).
	setLogins = "logins"

	runnerFloor     = "floor"
	runnerKubeFloor = "kube-floor"
	// runnerBothFloors is the broker and Kubernetes floors run at once
	// (bothFloors); it is not a floor of the ratios.
	runnerBothFloors = "both-floors"
	// runnerFinalizerFloors is runnerBothFloors with a finalizer patch per
	// object, the write a controller with deletionPolicy delete adds; not
	// a floor of the ratios either.
	runnerFinalizerFloors = "finalizer-floors"
	// runnerLookupFloor is the Keystone floor with the filtered GET before
	// each create that orderhub and K-ORC send; not a floor of the ratios.
	runnerLookupFloor = "lookup-floor"
	runnerOrderhub    = "orderhub"
	runnerKORC        = "k-orc"
	runnerMTO         = "mto"
	// runnerOSHPython is OpenStack-Helm's Python topology controller
	// (oshpython.go).
	runnerOSHPython = "osh-python"
	runnerCLI       = "cli"
	runnerESO       = "eso"
	// runnerKORCAlone is the hub set's K-ORC objects created directly, no
	// hub (korcalone.go).
	runnerKORCAlone = "k-orc-alone"
	// The logins set's runners.
	runnerPasswordLogin = "password-login"
	runnerAppCredLogin  = "application-credential-login"
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
	// mResync is backend requests per object over one resync period
	// (-resync, measureResync), mResyncWrites the non-GET ones, and
	// mResyncBusiest the share of them in the period's busiest tenth (0.1
	// is an even spread, 1 one burst).
	mResync        = "resync_req_per_object"
	mResyncWrites  = "resync_writes_per_object"
	mResyncBusiest = "resync_busiest_tenth"
	// Hub set (hubsteady.go): Keystone requests per credential while
	// applying; over the steady window Keystone requests per order per
	// hour, hashing logins per order per day (all, and the admin's), and the
	// Keystone process's CPU seconds per hour.
	mReqPerCredential  = "keystone_req_per_credential"
	mSteadyOrderHour   = "steady_keystone_req_per_order_hour"
	mHashOrderDay      = "steady_hashing_logins_per_order_day"
	mHashAdminOrderDay = "steady_admin_logins_per_order_day"
	mKeystoneCPUHour   = "steady_keystone_cpu_s_per_hour"
	// mKeystoneCPULogin is Keystone's CPU seconds per login (logins set).
	mKeystoneCPULogin = "keystone_cpu_s_per_login"
)

// runnerLabel is how the table names a runner in a set.
func runnerLabel(set, runner string) string {
	switch runner {
	case runnerFloor:
		switch set {
		case setTopology:
			return "broker floor (sequential requests, 1 connection)"
		case setHub:
			return "Keystone floor (5 requests per credential, sequential, 1 connection)"
		}
		return "Keystone floor (sequential POSTs, 1 connection)"
	case runnerLookupFloor:
		return "Keystone floor with the lookup (GET by name, then POST; sequential)"
	case runnerKubeFloor:
		return "Kubernetes floor (create + 1 status write, no controller)"
	case runnerBothFloors:
		return "broker and Kubernetes floors at once (shared CPUs)"
	case runnerFinalizerFloors:
		return "both floors at once, with a finalizer patch (3 writes per object)"
	case runnerOrderhub:
		switch set {
		case setTopology:
			return "orderhub topology"
		case setHub:
			return "orderhub hub (Keystone requests: hub + K-ORC)"
		}
		return "orderhub identity"
	case runnerKORC:
		if set == setHub {
			return "K-ORC v2.6.0, the hub's children (all namespaces)"
		}
		return "K-ORC v2.6.0"
	case runnerPasswordLogin:
		return "password login, project-scoped (sequential, 1 connection)"
	case runnerAppCredLogin:
		return "application-credential login (sequential, 1 connection)"
	case runnerKORCAlone:
		return "K-ORC v2.6.0 alone (its objects created directly, no hub)"
	case runnerESO:
		return "External Secrets v0.16.2, the hub's backups (all namespaces)"
	case runnerMTO:
		return "messaging-topology-operator v1.20.1"
	case runnerOSHPython:
		return "OpenStack-Helm Python controller (chart defaults: 10 s sweeps)"
	case runnerCLI:
		return "openstack CLI, one process per call"
	}
	return runner
}

// result is one runner timed on one set.
type result struct {
	Set    string `json:"set"`
	Runner string `json:"runner"`
	// N is the run's -n.
	N       int `json:"n"`
	Objects int `json:"objects"`
	// Metrics holds what was measured, by the m* keys; a key is absent
	// where it does not apply (a floor has no process).
	Metrics map[string]float64 `json:"metrics"`
	// Writes are the controller's apiserver writes while applying, by
	// "<method> <resource>" (testenv.KubeResource).
	Writes map[string]int64 `json:"apiserver_writes,omitempty"`
	Note   string           `json:"note,omitempty"`
}

// writesOnly keeps the write methods of counts by "<method> <resource>".
func writesOnly(c map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range c {
		method, _, _ := strings.Cut(k, " ")
		if v > 0 && method != "GET" && method != "HEAD" && method != "OPTIONS" {
			out[k] = v
		}
	}
	return out
}

// topWrites is the largest entries of w, "1200 PATCH secrets, ...".
// (Any counts by key: also the resync window's requests.)
func topWrites(w map[string]int64, n int) string {
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return w[keys[i]] > w[keys[j]] || w[keys[i]] == w[keys[j]] && keys[i] < keys[j] })
	if len(keys) > n {
		keys = keys[:n]
	}
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", w[k], k))
	}
	return strings.Join(parts, ", ")
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
	type key struct {
		set, runner string
		n           int
	}
	var order []key
	groups := map[key][]result{}
	for _, r := range runs {
		k := key{r.Set, r.Runner, r.N}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []result
	for _, k := range order {
		g := groups[k]
		m := result{Set: k.set, Runner: k.runner, N: k.n, Objects: g[0].Objects, Note: g[0].Note, Writes: g[0].Writes, Metrics: map[string]float64{}}
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

// setRun is one set at one N.
type setRun struct {
	set string
	n   int
}

// bySet groups results by set and N, in first-seen order.
func bySet(res []result) (sets []setRun, m map[setRun][]result) {
	m = map[setRun][]result{}
	for _, r := range res {
		k := setRun{r.Set, r.N}
		if _, ok := m[k]; !ok {
			sets = append(sets, k)
		}
		m[k] = append(m[k], r)
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
	case setLogins:
		return fmt.Sprintf("logins, %d of each kind, one user (objects: logins; Keystone CPU s per login in the note)", n)
	case setHub:
		return fmt.Sprintf("hub, %d KeystoneApplicationCredentials, each with its KeystoneUser, KeystoneProject and KeystoneRoleAssignment (%d orders)", n, 4*n)
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
func writeTable(w io.Writer, res []result) {
	sets, m := bySet(res)
	for _, sr := range sets {
		set := sr.set
		fmt.Fprintf(w, "\n%s\n\n", setTitle(set, sr.n))
		tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
		fmt.Fprintln(tw, "| runner\t| objects\t| apply→Ready s\t| ms/object\t| × floor\t| × orderhub\t| backend req/object\t| steady req/object\t| apiserver writes/object\t| RSS peak MiB\t| CPU s (apply)\t| delete s\t| note\t|")
		fmt.Fprintln(tw, "|---\t|---:\t|---:\t|---:\t|---:\t|---:\t|---:\t|---:\t|---:\t|---:\t|---:\t|---:\t|---\t|")
		for _, r := range m[sr] {
			xf, xo := ratios(m[sr], r)
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
		if set == setHub {
			writeHubSummary(w, m[sr])
		}
	}
}

// jsonLine is one line of -json output.
type jsonLine struct {
	Kind string `json:"kind"` // "run" (one repeat) or "median"
	result
	Repeat    int      `json:"repeat,omitempty"`
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
func writeJSON(w io.Writer, runs []result, repeats []int, med []result) error {
	enc := json.NewEncoder(w)
	for i, r := range runs {
		if err := enc.Encode(jsonLine{Kind: "run", result: r, Repeat: repeats[i]}); err != nil {
			return err
		}
	}
	_, m := bySet(med)
	for _, r := range med {
		xf, xo := ratios(m[setRun{r.Set, r.N}], r)
		if err := enc.Encode(jsonLine{Kind: "median", result: r, XFloor: finite(xf), XOrderhub: finite(xo)}); err != nil {
			return err
		}
	}
	return nil
}

// writeGrowth prints, when res holds more than one N, one table of the cost
// per object by N: apply→Ready ms per object, then apiserver writes per
// object and peak RSS MiB, per set and runner. Growth is linear where the
// ms per object stays flat.
func writeGrowth(w io.Writer, res []result) {
	var ns []int
	type row struct{ set, runner string }
	var rows []row
	cells := map[row]map[int]result{}
	for _, r := range res {
		if !slices.Contains(ns, r.N) {
			ns = append(ns, r.N)
		}
		k := row{r.Set, r.Runner}
		if cells[k] == nil {
			rows = append(rows, k)
			cells[k] = map[int]result{}
		}
		cells[k][r.N] = r
	}
	if len(ns) < 2 {
		return
	}
	sort.Ints(ns)
	fmt.Fprintf(w, "\ncost per object by N: apply→Ready ms/object (apiserver writes/object, RSS peak MiB)\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	head, rule := "| set\t| runner\t|", "|---\t|---\t|"
	for _, n := range ns {
		head += fmt.Sprintf(" N=%d\t|", n)
		rule += "---:\t|"
	}
	fmt.Fprintln(tw, head)
	fmt.Fprintln(tw, rule)
	for _, k := range rows {
		line := fmt.Sprintf("| %s\t| %s\t|", k.set, runnerLabel(k.set, k.runner))
		for _, n := range ns {
			r, ok := cells[k][n]
			v, has := r.Metrics[mApplyReady]
			if !ok || !has || r.Objects == 0 {
				line += " -\t|"
				continue
			}
			line += fmt.Sprintf(" %.1f (%s, %s)\t|", v*1000/float64(r.Objects), cell(r.Metrics, mKubeWrites, "%.2f"), cell(r.Metrics, mRSS, "%.0f"))
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}
