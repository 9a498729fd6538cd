#!/usr/bin/env bash
# Regenerates everything derived from Go sources. Each block belongs to the
# package that owns it; add yours, touch only your own.
set -euo pipefail
cd "$(dirname "$0")/.."
CG=${ORDERHUB_CONTROLLER_GEN:?set ORDERHUB_CONTROLLER_GEN to the controller-gen binary (hack/tools.sh env)}

# --- hub API c5c3.io/v1alpha1, its webhooks and admission corpora (issue 3) ---
"$CG" object paths=./api/c5c3/...
"$CG" crd paths=./api/c5c3/... output:crd:dir=config/crd/bases
"$CG" webhook paths=./webhooks/... output:webhook:dir=config/webhook
go run ./tests/e2e/corpus/gen --root tests/e2e/c5c3

# --- topology API rabbitmq.osh.openstack.org/v1alpha1 and its RBAC (issue 7) ---
"$CG" object paths=./api/rabbitmq/...
"$CG" crd paths=./api/rabbitmq/... output:crd:dir=config/crd/bases
"$CG" rbac:roleName=orderhub-topology paths=./controllers/topology/... output:rbac:dir=config/rbac/topology

# --- identity API keystone.osh.openstack.org/v1alpha1 and its RBAC (issue 6) ---
"$CG" object paths=./api/keystone/...
"$CG" crd paths=./api/keystone/... output:crd:dir=config/crd/bases
"$CG" rbac:roleName=orderhub-identity paths=./controllers/identity/... output:rbac:dir=config/rbac/identity

# --- hub controllers' RBAC (issue 4) ---
"$CG" rbac:roleName=orderhub-hub paths=./controllers/hub/... output:rbac:dir=config/rbac/hub

# --- Helm chart: CRDs, RBAC rules and webhooks copied from config/ (issue 11) ---
hack/chart-generate.sh
