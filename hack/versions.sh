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
HELM_DOCS_VERSION=v1.14.2
CONTAINERD_VERSION=v2.4.2
# The CA bundle of the image (make image): Debian's ca-certificates .deb of
# exactly this version, checked against this SHA-256 (apt-cache show
# ca-certificates=<version> prints it).
CA_CERTIFICATES_VERSION=20250419~deb12u2
CA_CERTIFICATES_SHA256=b9f76b5271a7ac373fd5e7e1b5b826a71ddd702b42a0d104955ecb1acfffc94b
# The topology peer of hack/bench. Its go.mod requires cluster-operator v2.22.3,
# which the Go module proxy does not serve; it is built against this one
# (hack/tools.sh mto).
MTO_VERSION=v1.20.1
MTO_CLUSTER_OPERATOR_VERSION=v2.20.0

ORDERHUB_CACHE="${ORDERHUB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/orderhub}"
K8S_DIR="$ORDERHUB_CACHE/bin/k8s-$K8S_VERSION"
CHAINSAW_DIR="$ORDERHUB_CACHE/bin/chainsaw-$CHAINSAW_VERSION"
CONTROLLER_GEN_DIR="$ORDERHUB_CACHE/bin/controller-gen-$CONTROLLER_GEN_VERSION"
KORC_DIR="$ORDERHUB_CACHE/bin/korc-$KORC_VERSION"
ESO_DIR="$ORDERHUB_CACHE/bin/eso-$ESO_VERSION"
# The vault tools module is part of the key: changing its pins rebuilds.
VAULT_DIR="$ORDERHUB_CACHE/bin/vault-$VAULT_VERSION"
CRANE_DIR="$ORDERHUB_CACHE/bin/crane-$CRANE_VERSION"
CA_CERTIFICATES_DIR="$ORDERHUB_CACHE/bin/ca-certificates-$CA_CERTIFICATES_VERSION"
HELM_DIR="$ORDERHUB_CACHE/bin/helm-$HELM_VERSION"
HELM_DOCS_DIR="$ORDERHUB_CACHE/bin/helm-docs-$HELM_DOCS_VERSION"
MTO_DIR="$ORDERHUB_CACHE/bin/mto-$MTO_VERSION-co-$MTO_CLUSTER_OPERATOR_VERSION"
# The local node (hack/tools.sh node): kubelet and kube-scheduler from the same
# tools module as the control plane, in their own folder so the k8s folder's
# check stays as it is; containerd with its shim and ctr; the sandbox image,
# keyed by the hash of its source.
KUBE_NODE_DIR="$ORDERHUB_CACHE/bin/k8s-node-$K8S_VERSION"
CONTAINERD_DIR="$ORDERHUB_CACHE/bin/containerd-$CONTAINERD_VERSION"
PAUSE_VERSION=$(cat "$(dirname "${BASH_SOURCE[0]}")/pause/main.go" 2>/dev/null | sha256sum | cut -c1-12)
PAUSE_DIR="$ORDERHUB_CACHE/bin/pause-$PAUSE_VERSION"
PAUSE_IMAGE="localhost/orderhub/pause:$PAUSE_VERSION"
