#!/usr/bin/env bash
# Fails when a tracked file (any type, this script included) or a tracked
# file's path cites a document a reader of this repository cannot open: the
# specification texts and design notes the project was started from. Cite
# docs/reference/<kind>.md (page and section), the other pages under docs/,
# or an upstream project by URL or module path instead.
#
# Usage: hack/check-citations.sh   (run by `make vet`)
# Exit status: 0 when nothing is found, 1 with the offending lines on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

# The patterns are assembled from pieces so that this file does not match
# them itself and needs no exclusion.
s='se''ed'
# Case-insensitive: the spec files by number, section sign or name, the
# research notes, and the parent folder they live in.
ci=(
	"\\b${s}s?[ -]0*[0-9]{1,3}\\b" # a spec file by number, spaced or hyphenated
	"\\b${s}s? *(§|\")"            # a spec section by section sign or title
	"\\bthe (upstream )?${s}s?\\b" # the spec in prose
	"\\b${s}s?'"                   # its possessive
	"\\b${s}s?\$"                  # a number or title wrapped onto the next line
	"c5c3""-brief|osh""-brief|research ""brief|\\bbrief §"
	"conformance""-turn"
	"\\.\\./sha""red|sha""red/(seeds|research|design)"
	"keystoneservice-crd""-reference|keystoneapplicationcredential-crd""-reference"
	"osh-keystone-identity""-crds|osh-rabbitmq-topology""-crds"
)
# Case-sensitive: the design notes (docs/architecture.md is this repository's).
cs=(
	"ARCHI""TECTURE(\\.md| \")|STA""CK\\.md|STY""LE\\.md"
)

args=()
for p in "${ci[@]}"; do args+=(-e "$p"); done
found=0
if git grep -n -i -E "${args[@]}"; then found=1; fi
args=()
for p in "${cs[@]}"; do args+=(-e "$p"); done
if git grep -n -E "${args[@]}"; then found=1; fi
# Paths too: a fixture named after a spec file cites it.
names=$(git ls-files | grep -i -E "${s}s?[ -]0*[0-9]" || true)
if [ -n "$names" ]; then echo "$names"; found=1; fi

if [ "$found" = 1 ]; then
	echo "check-citations: the lines above cite documents outside this repository;" >&2
	echo "cite docs/reference/<kind>.md (page, \"Section\") or the upstream URL or module path instead" >&2
	exit 1
fi
