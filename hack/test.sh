#!/usr/bin/env bash
# Runs unit and integration tests (tag integration) against the real local
# stack, printing a compact log (package results, test results, failures) and a
# closing summary line. The chainsaw e2e suites run inside that go test run:
# TestIntegration_ChainsawCorpora (tests/e2e/corpus) and
# TestIntegration_ChainsawLiveSuites (tests/e2e/c5c3). The full log is in
# .test-output.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${TEST_P:=1}" "${TEST_TIMEOUT:=60m}"
out=.test-output.txt
go test -v -tags integration -p "$TEST_P" -timeout "$TEST_TIMEOUT" -count=1 ./... 2>&1 | tee "$out" |
	grep --line-buffered -E '^(ok|FAIL|panic:)|^\s*--- (PASS|FAIL|SKIP)|_test\.go:[0-9]+:|^testenv:' || true
rc=${PIPESTATUS[0]}
hack/test-summary.sh "$out" || rc=1
exit "$rc"
