package main

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing is not NaN")
	}
}

// Repeats fold into one row per set and runner, each metric its median;
// the topology floor is the larger of the broker and the Kubernetes floor
// (the two floors run at once are not a floor of the ratios).
func TestMediansAndRatios(t *testing.T) {
	run := func(runner string, apply float64) result {
		return result{Set: setTopology, Runner: runner, Objects: 10, Metrics: map[string]float64{mApplyReady: apply}}
	}
	runs := []result{
		run(runnerFloor, 1), run(runnerKubeFloor, 2), run(runnerBothFloors, 3.5), run(runnerOrderhub, 4), run(runnerMTO, 8),
		run(runnerFloor, 3), run(runnerKubeFloor, 2), run(runnerBothFloors, 3.5), run(runnerOrderhub, 6), run(runnerMTO, 12),
		run(runnerFloor, 2), run(runnerKubeFloor, 2), run(runnerBothFloors, 3.5), run(runnerOrderhub, 5), run(runnerMTO, 10),
	}
	med := medians(runs)
	if len(med) != 5 {
		t.Fatalf("%d rows, want 5", len(med))
	}
	if med[3].Runner != runnerOrderhub || med[3].Metrics[mApplyReady] != 5 {
		t.Fatalf("orderhub row %+v, want median 5", med[3])
	}
	xf, xo := ratios(med, med[4])
	if xf != 5 || xo != 2 {
		t.Fatalf("mto: ×floor %v ×orderhub %v, want 5 and 2", xf, xo)
	}
	var table bytes.Buffer
	writeTable(&table, med)
	if !strings.Contains(table.String(), "messaging-topology-operator v1.20.1") || !strings.Contains(table.String(), "| 10.0") {
		t.Fatalf("table lacks the peer row:\n%s", table.String())
	}
	var js bytes.Buffer
	if err := writeJSON(&js, runs, make([]int, len(runs)), med); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(js.String()), "\n")
	if len(lines) != len(runs)+len(med) {
		t.Fatalf("%d JSON lines, want %d", len(lines), len(runs)+len(med))
	}
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last["kind"] != "median" || last["runner"] != runnerMTO || last["x_floor"] != 5.0 {
		t.Fatalf("last JSON line %v", last)
	}
}

func TestParseProc(t *testing.T) {
	// proc(5): utime and stime are fields 14 and 15; the command may hold ") ".
	stat := "1234 (a) b) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 10 0 100 1000 200"
	if got, err := parseStatCPU(stat); err != nil || got != 3 {
		t.Fatalf("parseStatCPU = %v, %v; want 3 s", got, err)
	}
	if got, err := parseStatusKiB("Name:\tx\nVmHWM:\t   20480 kB\nVmRSS:\t 1024 kB\n", "VmHWM"); err != nil || got != 20 {
		t.Fatalf("VmHWM = %v, %v; want 20 MiB", got, err)
	}
	if _, err := parseStatusKiB("Name:\tx\n", "VmHWM"); err == nil {
		t.Fatal("no error without VmHWM")
	}
}

// With more than one N the bench adds the cost per object by N; with one it
// adds nothing.
func TestWriteGrowth(t *testing.T) {
	run := func(n int, apply, writes float64) result {
		return result{Set: setProjects, Runner: runnerOrderhub, N: n, Objects: n,
			Metrics: map[string]float64{mApplyReady: apply, mKubeWrites: writes, mRSS: 70}}
	}
	var one bytes.Buffer
	writeGrowth(&one, []result{run(200, 30, 3)})
	if one.Len() != 0 {
		t.Fatalf("one N printed a growth table:\n%s", one.String())
	}
	var two bytes.Buffer
	writeGrowth(&two, medians([]result{run(1000, 160, 3), run(200, 30, 3), run(1000, 150, 3)}))
	out := two.String()
	for _, want := range []string{"N=200", "N=1000", "| 150.0 (3.00, 70)", "| 155.0 (3.00, 70)"} {
		if !strings.Contains(out, want) {
			t.Fatalf("growth table lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "N=200") > strings.Index(out, "N=1000") {
		t.Fatalf("N columns not in ascending order:\n%s", out)
	}
}

func TestCollapseIDs(t *testing.T) {
	got := collapseIDs(map[string]int64{
		"GET /v3/projects/0123456789abcdef0123456789abcdef": 2,
		"GET /v3/projects/fedcba9876543210fedcba9876543210": 3,
		"POST /v3/auth/tokens":                              1,
		"GET /v3/projects/not-an-id":                        0,
	})
	want := map[string]int64{"GET /v3/projects/{id}": 5, "POST /v3/auth/tokens": 1}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("collapseIDs = %v, want %v", got, want)
	}
}

// The hub row's apply→Ready is divided by the floor's and the K-ORC-alone
// row's; a missing row leaves its ratio empty.
func TestHubRatios(t *testing.T) {
	row := func(runner string, apply float64) result {
		return result{Set: setHub, Runner: runner, Objects: 40, Metrics: map[string]float64{mApplyReady: apply, mReqPerCredential: 5}}
	}
	set := []result{row(runnerFloor, 4), row(runnerKORCAlone, 10), row(runnerOrderhub, 12), row(runnerKORC, 0)}
	xf, xk := hubRatios(set)
	if xf != 3 || xk != 1.2 {
		t.Fatalf("×floor %v ×K-ORC alone %v, want 3 and 1.2", xf, xk)
	}
	if _, xk := hubRatios(set[:1]); !math.IsNaN(xk) {
		t.Fatalf("×K-ORC alone without its row = %v, want NaN", xk)
	}
	var out bytes.Buffer
	writeTable(&out, set)
	if !strings.Contains(out.String(), "÷ floor 3.00 (goal ≤ 2), ÷ K-ORC alone 1.20") {
		t.Fatalf("table lacks the hub ratios:\n%s", out.String())
	}
}

func TestCheckHubRunners(t *testing.T) {
	if err := checkHubRunners(true, []string{runnerOrderhub, runnerFloor}); err != nil {
		t.Errorf("hub set, orderhub and floor: %v", err)
	}
	if err := checkHubRunners(true, []string{runnerKORC}); err == nil {
		t.Error("hub set, k-orc: want an error (the hub set's K-ORC row is the hub's own run)")
	}
	if err := checkHubRunners(false, []string{runnerKORC}); err != nil {
		t.Errorf("identity sets, k-orc: %v", err)
	}
	b := &bench{runners: []string{runnerOrderhub}}
	if b.runs(runnerFloor) || !b.runs(runnerOrderhub) {
		t.Errorf("-runners orderhub: runs(floor)=%v runs(orderhub)=%v, want false, true", b.runs(runnerFloor), b.runs(runnerOrderhub))
	}
	if !(&bench{}).runs(runnerFloor) {
		t.Error("no -runners: want every runner to run")
	}
}
