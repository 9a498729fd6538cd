package main

import (
	"bytes"
	"encoding/json"
	"math"
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
// the topology floor is the larger of the broker and the Kubernetes floor.
func TestMediansAndRatios(t *testing.T) {
	run := func(runner string, apply float64) result {
		return result{Set: setTopology, Runner: runner, Objects: 10, Metrics: map[string]float64{mApplyReady: apply}}
	}
	runs := []result{
		run(runnerFloor, 1), run(runnerKubeFloor, 2), run(runnerOrderhub, 4), run(runnerMTO, 8),
		run(runnerFloor, 3), run(runnerKubeFloor, 2), run(runnerOrderhub, 6), run(runnerMTO, 12),
		run(runnerFloor, 2), run(runnerKubeFloor, 2), run(runnerOrderhub, 5), run(runnerMTO, 10),
	}
	med := medians(runs)
	if len(med) != 4 {
		t.Fatalf("%d rows, want 4", len(med))
	}
	if med[2].Runner != runnerOrderhub || med[2].Metrics[mApplyReady] != 5 {
		t.Fatalf("orderhub row %+v, want median 5", med[2])
	}
	xf, xo := ratios(med, med[3])
	if xf != 5 || xo != 2 {
		t.Fatalf("mto: ×floor %v ×orderhub %v, want 5 and 2", xf, xo)
	}
	var table bytes.Buffer
	writeTable(&table, med, 4)
	if !strings.Contains(table.String(), "messaging-topology-operator v1.20.1") || !strings.Contains(table.String(), "| 10.0") {
		t.Fatalf("table lacks the peer row:\n%s", table.String())
	}
	var js bytes.Buffer
	if err := writeJSON(&js, runs, make([]int, len(runs)), med, 4); err != nil {
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
