# orderhub: the two set-up commands are `make demo` and `make test` (README.md).
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

# Cache of the stack's binaries, outside the clone (override with ORDERHUB_CACHE=...).
TOOLS_ENV := $(shell hack/tools.sh env)
$(foreach v,$(TOOLS_ENV),$(eval export $(v)))
export GOFLAGS := -buildvcs=false
CONTROLLER_GEN := $(ORDERHUB_CONTROLLER_GEN)
# The version orderhub --version prints, the User-Agent carries and the image tag.
VERSION ?= $(shell git describe --tags --always --dirty --match 'v*' 2>/dev/null || echo dev)
IMAGE ?= localhost/orderhub
IMAGE_TAR ?= bin/orderhub-image.tar
# The commit --version prints: GOFLAGS=-buildvcs=false leaves it out of the Go build info, so it is set here.
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS := -X github.com/c5c3/orderhub/internal/version.Version=$(VERSION) -X github.com/c5c3/orderhub/internal/version.Commit=$(COMMIT)
# Integration tests start real servers; keep them one package at a time on 2 cores.
TEST_P ?= 1
TEST_TIMEOUT ?= 60m

.PHONY: help
help: ## List the targets.
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-28s %s\n", $$1, $$2}'

.PHONY: tools
tools: ## Build/install every stack binary into $(ORDERHUB_CACHE) (cold ~45-70 min on 2 cores, warm seconds).
	hack/tools.sh all

.PHONY: manifests
manifests: ## Generate CRDs and deepcopy code with controller-gen, docs/troubleshooting.md and the chart's values README.
	hack/tools.sh controller-gen
	hack/generate.sh
	go run ./hack/troubleshooting
	$(MAKE) chart-docs

.PHONY: bench
bench: ## orderhub side by side with K-ORC and the messaging-topology-operator, with floors (BENCH_ARGS="-n 1000 -repeat 3"; docs/performance.md).
	hack/tools.sh korc mto
	go run ./hack/bench $(BENCH_ARGS)

.PHONY: build
build: ## Build bin/orderhub.
	go build -ldflags "$(LDFLAGS)" -o bin/orderhub ./cmd/orderhub

.PHONY: image
image: ## Build the OCI image index $(IMAGE):$(VERSION) (linux/amd64, linux/arm64; PLATFORMS=...) without Docker into $(IMAGE_TAR), its digest in $(IMAGE_TAR).digest and an SPDX SBOM in $(IMAGE_TAR).spdx.json (ctr -n k8s.io images import $(IMAGE_TAR)).
	COMMIT="$(COMMIT)" hack/image.sh "$(VERSION)" "$(IMAGE)" "$(IMAGE_TAR)"

.PHONY: vet
vet: ## gofmt check, no merge conflict markers, citation check (hack/check-citations.sh), the package section of docs/architecture.md (hack/archcheck), docs/troubleshooting.md up to date (hack/troubleshooting) and go vet (with and without the integration tag).
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "not gofmt'd: $$unformatted"; exit 1; fi
	@if git grep -nE '^(<<<<<<<|>>>>>>>)( |$$)' -- . ; then echo "merge conflict markers (above)"; exit 1; fi
	hack/check-citations.sh
	go run ./hack/archcheck
	go run ./hack/troubleshooting -check
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

.PHONY: build-installer
build-installer: ## Render config/default with the image $(IMAGE):$(VERSION) into dist/install.yaml, by digest when `make image` wrote $(IMAGE_TAR).digest for $(IMAGE):$(VERSION) (kubectl apply --server-side -f dist/install.yaml).
	@test -x "$(ORDERHUB_K8S_DIR)/kubectl" || { echo "no kubectl in $(ORDERHUB_K8S_DIR): run hack/tools.sh k8s"; exit 1; }
	@mkdir -p bin/installer dist
	@ref="$(IMAGE):$(VERSION)"; pin="newTag: $(VERSION)"; \
	if [ -s "$(IMAGE_TAR).digest" ] && [ "$$(cat "$(IMAGE_TAR).ref" 2>/dev/null)" = "$$ref" ]; then \
		digest=$$(cat "$(IMAGE_TAR).digest"); pin="digest: $$digest"; ref="$(IMAGE)@$$digest"; fi; \
	printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../../config/default\nimages:\n  - name: localhost/orderhub\n    newName: %s\n    %s\n' "$(IMAGE)" "$$pin" >bin/installer/kustomization.yaml; \
	"$(ORDERHUB_K8S_DIR)/kubectl" kustomize bin/installer >dist/install.yaml; \
	echo "dist/install.yaml: image $$ref"

.PHONY: chart-docs
chart-docs: ## Write the values table of charts/orderhub/README.md from README.md.gotmpl and the values' "# --" comments (helm-docs).
	hack/tools.sh helm-docs
	$(ORDERHUB_HELM_DOCS) --chart-search-root charts --template-files README.md.gotmpl --output-file README.md --sort-values-order file --log-level warning

.PHONY: helm-lint
helm-lint: ## helm lint the chart (charts/orderhub) with its defaults and with every optional part on.
	hack/tools.sh helm
	$(ORDERHUB_HELM) lint charts/orderhub
	$(ORDERHUB_HELM) lint charts/orderhub --set webhook.certManager.enabled=true,hub.replicas=2,metrics.serviceMonitor.enabled=true,metrics.certManager.enabled=true,metrics.prometheusRule.enabled=true,metrics.dashboard.enabled=true,targetCluster.enabled=true

.PHONY: verify-generated
verify-generated: verify-invalid-cr-fixtures ## Fail when generated files differ from the committed ones.
	@changed=$$(git status --porcelain -- api config tests/e2e charts/orderhub/files charts/orderhub/README.md docs/troubleshooting.md); \
	if [ -n "$$changed" ]; then echo "$$changed"; echo "generated files are stale: run 'make manifests' and commit"; exit 1; fi

.PHONY: verify-invalid-cr-fixtures
verify-invalid-cr-fixtures: ## Fail when the admission corpora drift from tests/e2e/corpus (or hold orphans).
	go run ./tests/e2e/corpus/gen --root tests/e2e/c5c3 --check

.PHONY: soak
soak: tools build ## Rotation soak with faults on the local stack (docs/soak.md); e.g. SOAK_ARGS="-duration=30m -faults=30 -json".
	go run ./hack/soak -build=false $(SOAK_ARGS)

.PHONY: soak-short
soak-short: tools build ## The soak's 3-fault short variant as a test alone (make test runs it too, docs/soak.md).
	go test -tags integration -count=1 -timeout 30m -run TestIntegration_Soak_ThreeFaults -v ./hack/soak/

.PHONY: demo
demo: demo-tools build ## Start the local stack and orderhub hub, order the sample KeystoneService, prove it from outside (stays up until `make demo-down`).
	hack/demo.sh

.PHONY: demo-tools
demo-tools: ## Build only the stack binaries the demo runs, two at a time, one progress line per tool (DRY_RUN=1 shows the plan).
	hack/demo-tools.sh

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
