# Versions of the local stack's binaries, and the cache folders keyed by them.
# Sourced by hack/tools.sh, hack/stack and the Makefile (through `hack/tools.sh env`).
K8S_VERSION=v1.37.2
CHAINSAW_VERSION=v0.2.12
CHAINSAW_TOOLCHAIN=go1.25.14
CONTROLLER_GEN_VERSION=v0.23.0
KORC_VERSION=v2.6.0
ESO_VERSION=v0.16.2
VAULT_VERSION=v1.14.1
CRANE_VERSION=v0.22.1
HELM_VERSION=v3.22.0

ORDERHUB_CACHE="${ORDERHUB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/orderhub}"
K8S_DIR="$ORDERHUB_CACHE/bin/k8s-$K8S_VERSION"
CHAINSAW_DIR="$ORDERHUB_CACHE/bin/chainsaw-$CHAINSAW_VERSION"
CONTROLLER_GEN_DIR="$ORDERHUB_CACHE/bin/controller-gen-$CONTROLLER_GEN_VERSION"
KORC_DIR="$ORDERHUB_CACHE/bin/korc-$KORC_VERSION"
ESO_DIR="$ORDERHUB_CACHE/bin/eso-$ESO_VERSION"
# The vault tools module is part of the key: changing its pins rebuilds.
VAULT_DIR="$ORDERHUB_CACHE/bin/vault-$VAULT_VERSION"
CRANE_DIR="$ORDERHUB_CACHE/bin/crane-$CRANE_VERSION"
HELM_DIR="$ORDERHUB_CACHE/bin/helm-$HELM_VERSION"
