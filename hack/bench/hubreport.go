package main

import (
	"fmt"
	"io"
	"math"
)

// hubRatios are the hub set's apply→Ready ratios of the hub row: to the
// Keystone floor and to the K-ORC-alone row (NaN where a row is missing).
func hubRatios(set []result) (xFloor, xKORCAlone float64) {
	get := func(runner string) float64 {
		for _, r := range set {
			if v, ok := r.Metrics[mApplyReady]; ok && r.Runner == runner {
				return v
			}
		}
		return math.NaN()
	}
	hub := get(runnerOrderhub)
	return hub / get(runnerFloor), hub / get(runnerKORCAlone)
}

// writeHubSummary prints the hub set's goals beside what was measured
// (docs/performance.md, "The hub set").
func writeHubSummary(w io.Writer, set []result) {
	xf, xk := hubRatios(set)
	fmt.Fprintf(w, "\nhub apply→Ready ÷ floor %s (goal ≤ 2), ÷ K-ORC alone %s (goal ≤ 1.3)\n",
		cell(map[string]float64{"x": xf}, "x", "%.2f"), cell(map[string]float64{"x": xk}, "x", "%.2f"))
	for _, r := range set {
		if _, ok := r.Metrics[mReqPerCredential]; ok {
			fmt.Fprintf(w, "Keystone requests per credential while applying, %s: %s\n", runnerLabel(setHub, r.Runner), cell(r.Metrics, mReqPerCredential, "%.1f"))
		}
	}
	for _, r := range set {
		if r.Runner != runnerOrderhub {
			continue
		}
		if _, ok := r.Metrics[mSteadyOrderHour]; !ok {
			continue
		}
		fmt.Fprintf(w, "at rest: Keystone requests per order per hour %s; hashing logins per order per day %s (the admin's %s; goal ≤ 1); Keystone CPU s per hour %s (%s per credential)\n",
			cell(r.Metrics, mSteadyOrderHour, "%.2f"), cell(r.Metrics, mHashOrderDay, "%.2f"), cell(r.Metrics, mHashAdminOrderDay, "%.2f"),
			cell(r.Metrics, mKeystoneCPUHour, "%.1f"), cell(map[string]float64{"x": r.Metrics[mKeystoneCPUHour] / float64(r.Objects/4)}, "x", "%.3f"))
	}
}
