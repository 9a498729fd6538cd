# orderhub: the two set-up commands are `make demo` and `make test` (README.md).
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

# Cache of the stack's binaries, outside the clone (override with ORDERHUB_CACHE=...).
TOOLS_ENV := $(shell hack/tools.sh env)
$(foreach v,$(TOOLS_ENV),$(eval export $(v)))
export GOFLAGS := -buildvcs=false
CONTROLLER_GEN := $(ORDERHUB_CONTROLLER_GEN)
# Integration tests start real servers; keep them one package at a time on 2 cores.
TEST_P ?= 1
TEST_TIMEOUT ?= 60m

.PHONY: help
help: ## List the targets.
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-28s %s\n", $$1, $$2}'

.PHONY: tools
tools: ## Build/install every stack binary into $(ORDERHUB_CACHE) (cold ~45 min, warm seconds).
	hack/tools.sh all

.PHONY: manifests
manifests: ## Generate CRDs and deepcopy code with controller-gen.
	hack/tools.sh controller-gen
	hack/generate.sh

.PHONY: build
build: ## Build bin/orderhub.
	go build -o bin/orderhub ./cmd/orderhub

.PHONY: vet
vet: ## gofmt check and go vet (with and without the integration tag).
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "not gofmt'd: $$unformatted"; exit 1; fi
	go vet ./...
	go vet -tags integration ./...

.PHONY: unit
unit: ## Unit tests (pure logic, no servers).
	go test ./...

.PHONY: integration
integration: tools build ## Integration tests against the real local servers.
	go test -tags integration -p $(TEST_P) -timeout $(TEST_TIMEOUT) -count=1 ./...

.PHONY: test
test: tools manifests verify-generated vet build ## Everything CI runs: unit + integration + e2e on the real stack.
	TEST_P=$(TEST_P) TEST_TIMEOUT=$(TEST_TIMEOUT) hack/test.sh

.PHONY: verify-generated
verify-generated: verify-invalid-cr-fixtures ## Fail when generated files differ from the committed ones.
	@changed=$$(git status --porcelain -- api config tests/e2e); \
	if [ -n "$$changed" ]; then echo "$$changed"; echo "generated files are stale: run 'make manifests' and commit"; exit 1; fi

.PHONY: verify-invalid-cr-fixtures
verify-invalid-cr-fixtures: ## Fail when the admission corpora drift from tests/e2e/corpus (or hold orphans).
	go run ./tests/e2e/corpus/gen --root tests/e2e --check

.PHONY: demo
demo: tools build ## Start the local stack and orderhub hub, order the sample KeystoneService, prove it from outside (stays up until `make demo-down`).
	hack/demo.sh

.PHONY: demo-down
demo-down: ## Stop the demo's orderhub hub and the stack.
	hack/demo-order.sh down
	hack/stack down

.PHONY: stack-up
stack-up: tools build ## Start the local stack for a person (prints kubeconfig, openrc, OpenBao token).
	hack/stack up

.PHONY: stack-up-node
stack-up-node: tools build ## Start the local stack with a real node, so pods run (root; docs/local-stack.md).
	hack/stack up --node

.PHONY: stack-down
stack-down: ## Stop the local stack started by stack-up or demo.
	hack/stack down
