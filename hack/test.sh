#!/usr/bin/env bash
# Runs unit and integration tests (tag integration) against the real local
# stack, printing a compact log (package results, test results, failures) and a
# closing summary line, then the table of condition reasons and the live
# tests asserting them (hack/reasons). The chainsaw e2e suites run inside that go test run:
# TestIntegration_ChainsawCorpora (tests/e2e/corpus) and
# TestIntegration_ChainsawLiveSuites (tests/e2e/c5c3). The full log is in
# .test-output.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${TEST_P:=1}" "${TEST_TIMEOUT:=60m}"
out=.test-output.txt
# The lines a wait helper logs for hack/reasons (testenv.ObservedCondition)
# stay in the full log only.
filter() { grep --line-buffered -E '^(ok|FAIL|panic:)|^\s*--- (PASS|FAIL|SKIP)|_test\.go:[0-9]+:|^testenv:' | grep --line-buffered -v 'reasons-observed:' || true; }
# tests/multicluster runs one process per test: each of its tests starts the
# hub's order controllers on a multicluster-runtime manager, controller-runtime
# refuses a second controller of one name in a process, and
# sigs.k8s.io/multicluster-runtime's builder does not pass the manager's
# SkipNameValidation on.
mc=./tests/multicluster
go test -v -tags integration -p "$TEST_P" -timeout "$TEST_TIMEOUT" -count=1 $(go list -tags integration ./... | grep -v '/tests/multicluster$') 2>&1 | tee "$out" | filter
rc=${PIPESTATUS[0]}
for t in $(grep -ho '^func Test[A-Za-z0-9_]*' $mc/*_test.go | sed 's/^func //'); do
	go test -v -tags integration -timeout "$TEST_TIMEOUT" -count=1 -run "^$t\$" $mc 2>&1 | tee -a "$out" | filter
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
done
hack/test-summary.sh "$out" || rc=1
# The table of condition reason -> live test, read from the sources and this
# run's log (no stack needed): fails when a reason of
# api/c5c3/v1alpha1/conditions.go has no test that passed here, naming the
# reason and what to add; then the per-kind table of the conditions and
# events docs/reference/*.md lists, which fails on a gap that
# hack/reasons/known-gaps.txt does not list (hack/reasons/main.go).
go run ./hack/reasons -results "$out" || rc=1
exit "$rc"
