#!/usr/bin/env bash
# Prints one closing line for a `go test -v` log: "N passed, N failed, N skipped"
# (tests and subtests; a package that failed outside any test, e.g. in TestMain,
# counts as one failure), and exits non-zero when any failed or none ran.
set -euo pipefail
log=${1:?usage: test-summary.sh LOG}
count() { grep -cE "$1" "$log" || true; }
passed=$(count '^\s*--- PASS: ')
failed=$(count '^\s*--- FAIL: ')
pkgfail=$(count '^FAIL\s+\S+\s')
[ "$failed" -eq 0 ] && failed=$pkgfail
skipped=$(count '^\s*--- SKIP: ')
if [ "$skipped" -gt 0 ]; then
	echo "skipped tests:"
	grep -E '^\s*--- SKIP: ' "$log" | sed 's/^/  /'
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$pkgfail" -eq 0 ] && [ "$passed" -gt 0 ]
