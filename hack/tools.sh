#!/usr/bin/env bash
# Builds the binaries of the local stack from the Go module proxy into a
# version-keyed cache folder outside the clone, skipping whatever already
# exists, and installs the Debian packages the stack needs when missing.
#
#   hack/tools.sh [all|debs|k8s|chainsaw|controller-gen|korc|eso|vault|crane|ca-certificates|helm|helm-docs|mto|node]...
#   (node = node-debs kubelet containerd pause: the local node, docs/local-stack.md)
#
# ORDERHUB_CACHE overrides the cache folder (default ${XDG_CACHE_HOME:-~/.cache}/orderhub).
# `hack/tools.sh env` prints the paths as shell assignments for other scripts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"

# The proxy only: there is no git network to fall back to.
export GOPROXY="${GOPROXY_ONLY:-$(go env GOPROXY | cut -d, -f1)}"
export GOFLAGS=-buildvcs=false
log() { printf '[tools] %s\n' "$*" >&2; }

# module_copy MODULE@VERSION DEST: a writable copy of a module's source.
module_copy() {
	local dir
	dir=$(go mod download -json "$1" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
	[ -n "$dir" ] || { log "cannot download $1"; return 1; }
	rm -rf "$2" && mkdir -p "$(dirname "$2")" && cp -r "$dir" "$2" && chmod -R u+w "$2"
}

# apt_ensure PACKAGE...: install the Debian packages that are not installed yet.
apt_ensure() {
	local missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing Debian packages: ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=900 --no-install-recommends "${missing[@]}"
}

# locked TOOL: builds TOOL holding the cache's lock for it, so two runs at
# once (two clones, a test's hint to run make tools while make tools runs)
# build it once: the second waits, then finds the binaries and skips them.
locked() {
	mkdir -p "$ORDERHUB_CACHE"
	(
		flock 9 || { log "cannot lock $ORDERHUB_CACHE/.lock-$1"; exit 1; }
		"$1"
	) 9>"$ORDERHUB_CACHE/.lock-$1"
}

# The servers and the CLI the stack runs (Keystone, RabbitMQ, the openstack client).
debs() { apt_ensure python3-keystone rabbitmq-server sqlite3 python3-openstackclient; }

# k8s_ldflags: the version stamp every Kubernetes binary of the stack is built with.
k8s_ldflags() {
	local ld="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${K8S_VERSION#v1.}"
	echo "${ld%.*}"
}

k8s() {
	local out="$K8S_DIR"
	if [ -x "$out/kube-apiserver" ] && [ -x "$out/etcd" ] && [ -x "$out/kube-controller-manager" ] && [ -x "$out/kubectl" ]; then return 0; fi
	log "building etcd, kube-apiserver, kube-controller-manager, kubectl $K8S_VERSION (cold: ~13 min)"
	mkdir -p "$out.tmp"
	local ld
	ld=$(k8s_ldflags)
	(cd "$here/tools/k8s" &&
		for c in kube-apiserver kube-controller-manager kubectl; do
			CGO_ENABLED=0 go build -trimpath -ldflags "$ld" -o "$out.tmp/$c" "k8s.io/kubernetes/cmd/$c"
		done &&
		CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out.tmp/etcd" go.etcd.io/etcd/server/v3)
	rm -rf "$out" && mv "$out.tmp" "$out"
}

chainsaw() {
	[ -x "$CHAINSAW_DIR/chainsaw" ] && return 0
	log "building chainsaw $CHAINSAW_VERSION with $CHAINSAW_TOOLCHAIN (it does not build with newer Go; cold: ~6 min)"
	mkdir -p "$CHAINSAW_DIR"
	GOTOOLCHAIN="$CHAINSAW_TOOLCHAIN" CGO_ENABLED=0 GOBIN="$CHAINSAW_DIR" go install "github.com/kyverno/chainsaw@$CHAINSAW_VERSION"
}

controller_gen() {
	[ -x "$CONTROLLER_GEN_DIR/controller-gen" ] && return 0
	log "building controller-gen $CONTROLLER_GEN_VERSION"
	mkdir -p "$CONTROLLER_GEN_DIR"
	CGO_ENABLED=0 GOBIN="$CONTROLLER_GEN_DIR" go install "sigs.k8s.io/controller-tools/cmd/controller-gen@$CONTROLLER_GEN_VERSION"
}

korc() {
	[ -x "$KORC_DIR/manager" ] && [ -d "$KORC_DIR/crds" ] && return 0
	log "building the K-ORC manager $KORC_VERSION (cold: ~6 min)"
	local src="$ORDERHUB_CACHE/src/korc-$KORC_VERSION"
	module_copy "github.com/k-orc/openstack-resource-controller/v2@$KORC_VERSION" "$src"
	mkdir -p "$KORC_DIR.tmp"
	(cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$KORC_DIR.tmp/manager" ./cmd/manager)
	cp -r "$src/config/crd/bases" "$KORC_DIR.tmp/crds"
	rm -rf "$KORC_DIR" "$src" && mv "$KORC_DIR.tmp" "$KORC_DIR"
}

eso() {
	[ -x "$ESO_DIR/external-secrets" ] && [ -d "$ESO_DIR/crds" ] && return 0
	log "building the External Secrets controller $ESO_VERSION (cold: ~12 min)"
	local src="$ORDERHUB_CACHE/src/eso-$ESO_VERSION"
	module_copy "github.com/external-secrets/external-secrets@$ESO_VERSION" "$src"
	mkdir -p "$ESO_DIR.tmp"
	(cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$ESO_DIR.tmp/external-secrets" .)
	cp -r "$src/config/crds/bases" "$ESO_DIR.tmp/crds"
	rm -rf "$ESO_DIR" "$src" && mv "$ESO_DIR.tmp" "$ESO_DIR"
}

vault() {
	[ -x "$VAULT_DIR/vault" ] && return 0
	log "building the OpenBao-compatible server (Vault $VAULT_VERSION, MPL-2.0; cold: ~10 min)"
	# Vault v1.14.1 builds its sdk from its own tree (a replace line); the
	# pseudo-version its go.mod names is older than that tree and lacks functions
	# the pki and transit backends call. The published sdk v0.9.2 has them, but its
	# framework added a start-up check that panics on v1.14.1's enterprise
	# managed-keys stubs ("Pattern ... defines a CreateOperation but no
	# ExistenceCheck"). So we build against a copy of sdk v0.9.2 with that one
	# check removed, and nothing else changed; see docs/architecture.md.
	local work="$ORDERHUB_CACHE/src/vault-$VAULT_VERSION"
	rm -rf "$work" && mkdir -p "$work"
	cp "$here/tools/vault/go.mod" "$here/tools/vault/go.sum" "$here/tools/vault/main.go" "$work/"
	module_copy "github.com/hashicorp/vault/sdk@v0.9.2" "$work/sdk"
	python3 - "$work/sdk/framework/backend.go" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
check = """		if p.ExistenceCheck == nil {
			if _, ok := p.Operations[logical.CreateOperation]; ok {
				panic(fmt.Sprintf("Pattern %v defines a CreateOperation but no ExistenceCheck", p.Pattern))
			}
			if _, ok := p.Callbacks[logical.CreateOperation]; ok {
				panic(fmt.Sprintf("Pattern %v defines a CreateOperation but no ExistenceCheck", p.Pattern))
			}
		}
"""
if check not in s:
    sys.exit("sdk patch: the ExistenceCheck start-up check was not found")
open(p, "w").write(s.replace(check, ""))
PY
	mkdir -p "$VAULT_DIR.tmp"
	(cd "$work" && go mod edit -replace github.com/hashicorp/vault/sdk=./sdk &&
		CGO_ENABLED=0 go build -mod=mod -trimpath -ldflags "-s -w" -o "$VAULT_DIR.tmp/vault" .)
	rm -rf "$VAULT_DIR" "$work" && mv "$VAULT_DIR.tmp" "$VAULT_DIR"
}

# mto builds the upstream RabbitMQ messaging-topology-operator, the topology
# peer hack/bench runs out of cluster (docs/performance.md), with its CRDs
# (rabbitmq.com/v1beta1) and the RabbitmqCluster CRD its controllers watch.
# Its go.mod requires github.com/rabbitmq/cluster-operator/v2 v2.22.3, which
# the Go module proxy does not serve; the operator uses only that module's
# RabbitmqCluster API types, so it is built against
# $MTO_CLUSTER_OPERATOR_VERSION, whose config/crd gives the RabbitmqCluster CRD.
mto() {
	[ -x "$MTO_DIR/manager" ] && [ -d "$MTO_DIR/crds" ] && return 0
	log "building the messaging-topology-operator $MTO_VERSION (cold: ~8 min)"
	local src="$ORDERHUB_CACHE/src/mto-$MTO_VERSION" co="github.com/rabbitmq/cluster-operator/v2" codir
	module_copy "github.com/rabbitmq/messaging-topology-operator@$MTO_VERSION" "$src"
	codir=$(go mod download -json "$co@$MTO_CLUSTER_OPERATOR_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
	[ -n "$codir" ] || { log "cannot download $co@$MTO_CLUSTER_OPERATOR_VERSION"; return 1; }
	mkdir -p "$MTO_DIR.tmp/crds"
	(cd "$src" && go mod edit -replace "$co=$co@$MTO_CLUSTER_OPERATOR_VERSION" &&
		CGO_ENABLED=0 go build -mod=mod -trimpath -ldflags "-s -w" -o "$MTO_DIR.tmp/manager" ./cmd)
	cp "$src"/config/crd/bases/*.yaml "$codir/config/crd/bases/rabbitmq.com_rabbitmqclusters.yaml" "$MTO_DIR.tmp/crds/"
	chmod -R u+w "$MTO_DIR.tmp"
	rm -rf "$MTO_DIR" "$src" && mv "$MTO_DIR.tmp" "$MTO_DIR"
}

# crane builds OCI images without a Docker engine (make image).
crane() {
	[ -x "$CRANE_DIR/crane" ] && return 0
	log "building crane $CRANE_VERSION"
	mkdir -p "$CRANE_DIR"
	CGO_ENABLED=0 GOBIN="$CRANE_DIR" go install -trimpath -ldflags "-s -w" "github.com/google/go-containerregistry/cmd/crane@$CRANE_VERSION"
}

# ca_certificates downloads Debian's ca-certificates package of exactly
# CA_CERTIFICATES_VERSION with apt-get, checks its SHA-256 and writes the
# bundle the image ships: the package's Mozilla certificates
# (/usr/share/ca-certificates/mozilla/*.crt) concatenated in C-locale order,
# as update-ca-certificates concatenates them.
ca_certificates() {
	local dir=$CA_CERTIFICATES_DIR tmp=$CA_CERTIFICATES_DIR.tmp deb
	[ -s "$dir/ca-certificates.crt" ] && return 0
	log "downloading ca-certificates $CA_CERTIFICATES_VERSION (Debian)"
	rm -rf "$tmp" && mkdir -p "$tmp"
	(cd "$tmp" && apt-get download -qq "ca-certificates=$CA_CERTIFICATES_VERSION" 2>/dev/null) ||
		{ apt-get update -qq && (cd "$tmp" && apt-get download -qq "ca-certificates=$CA_CERTIFICATES_VERSION"); } ||
		{ log "apt-get download ca-certificates=$CA_CERTIFICATES_VERSION failed: pin a version apt-cache policy ca-certificates lists in hack/versions.sh"; return 1; }
	deb=$(ls "$tmp"/ca-certificates_*.deb)
	echo "$CA_CERTIFICATES_SHA256  $deb" | sha256sum -c --quiet - ||
		{ log "ca-certificates $CA_CERTIFICATES_VERSION: SHA-256 mismatch"; rm -rf "$tmp"; return 1; }
	dpkg-deb -x "$deb" "$tmp/root"
	find "$tmp/root/usr/share/ca-certificates/mozilla" -name '*.crt' | LC_ALL=C sort | while read -r f; do
		cat "$f"
		[ -z "$(tail -c1 "$f")" ] || echo
	done >"$tmp/ca-certificates.crt"
	[ -s "$tmp/ca-certificates.crt" ] || { log "ca-certificates: no certificates in $deb"; return 1; }
	mv "$deb" "$tmp/ca-certificates.deb" && rm -rf "$tmp/root" "$dir" && mv "$tmp" "$dir"
}

# helm-docs writes the values table of charts/orderhub/README.md from the
# values' "# --" comments (make chart-docs; github.com/norwoodj/helm-docs).
helm_docs() {
	[ -x "$HELM_DOCS_DIR/helm-docs" ] && return 0
	log "building helm-docs $HELM_DOCS_VERSION"
	mkdir -p "$HELM_DOCS_DIR"
	CGO_ENABLED=0 GOBIN="$HELM_DOCS_DIR" go install -trimpath -ldflags "-s -w" "github.com/norwoodj/helm-docs/cmd/helm-docs@$HELM_DOCS_VERSION"
}

# helm lints and renders charts/orderhub (cold: ~5 min).
helm() {
	[ -x "$HELM_DIR/helm" ] && return 0
	log "building helm $HELM_VERSION (cold: ~5 min)"
	mkdir -p "$HELM_DIR"
	# As helm's own Makefile does: the Kubernetes version `helm template` and
	# `helm lint` assume is that of its client-go (v0.37 for helm v3.22.0).
	local ld="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
	for p in chartutil lint/rules; do
		ld="$ld -X helm.sh/helm/v3/pkg/$p.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/$p.k8sVersionMinor=37"
	done
	CGO_ENABLED=0 GOBIN="$HELM_DIR" go install -trimpath -ldflags "$ld" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
}

# The local node (docs/local-stack.md): what it runs besides the built binaries.
# runc starts the containers; the CNI plugins (bridge, host-local, loopback in
# /usr/lib/cni) give pods their network; iptables holds the one DNAT rule.
node_debs() { apt_ensure runc containernetworking-plugins iptables; }

# kubelet and kube-scheduler come from the control plane's tools module, with its
# version stamp; they reuse the Go build cache the k8s build filled.
kube_node() {
	[ -x "$KUBE_NODE_DIR/kubelet" ] && [ -x "$KUBE_NODE_DIR/kube-scheduler" ] && return 0
	log "building kubelet, kube-scheduler $K8S_VERSION (after the k8s build: ~2 min; cold: ~15 min)"
	mkdir -p "$KUBE_NODE_DIR.tmp"
	local ld
	ld=$(k8s_ldflags)
	(cd "$here/tools/k8s" &&
		for c in kubelet kube-scheduler; do
			CGO_ENABLED=0 go build -trimpath -ldflags "$ld" -o "$KUBE_NODE_DIR.tmp/$c" "k8s.io/kubernetes/cmd/$c"
		done)
	rm -rf "$KUBE_NODE_DIR" && mv "$KUBE_NODE_DIR.tmp" "$KUBE_NODE_DIR"
}

# containerd, its runc shim and ctr from the Go module proxy, without the
# snapshotters that need C libraries (cold: ~4 min).
containerd_bin() {
	[ -x "$CONTAINERD_DIR/containerd" ] && [ -x "$CONTAINERD_DIR/containerd-shim-runc-v2" ] && [ -x "$CONTAINERD_DIR/ctr" ] && return 0
	log "building containerd $CONTAINERD_VERSION, containerd-shim-runc-v2 and ctr (cold: ~4 min)"
	local m=github.com/containerd/containerd/v2
	mkdir -p "$CONTAINERD_DIR.tmp"
	CGO_ENABLED=0 GOBIN="$CONTAINERD_DIR.tmp" go install -trimpath -tags "no_btrfs no_devmapper no_zfs" \
		-ldflags "-s -w -X $m/version.Version=$CONTAINERD_VERSION" \
		"$m/cmd/containerd@$CONTAINERD_VERSION" "$m/cmd/containerd-shim-runc-v2@$CONTAINERD_VERSION" "$m/cmd/ctr@$CONTAINERD_VERSION"
	rm -rf "$CONTAINERD_DIR" && mv "$CONTAINERD_DIR.tmp" "$CONTAINERD_DIR"
}

# The node's sandbox image, so pods need no registry: hack/pause built static,
# as the only file of one layer, with its entrypoint set. `crane mutate` reads
# its input from a registry, so a scratch `crane registry serve` on loopback
# holds the image for the length of this build.
pause_image() {
	[ -f "$PAUSE_DIR/pause.tar" ] && return 0
	crane
	log "building the sandbox image $PAUSE_IMAGE"
	local work reg port=""
	work=$(mktemp -d)
	CGO_ENABLED=0 go build -C "$here/.." -trimpath -ldflags "-s -w" -o "$work/pause" ./hack/pause
	tar -C "$work" --owner=0 --group=0 --numeric-owner --mtime=@0 -cf "$work/layer.tar" pause
	"$CRANE_DIR/crane" registry serve --address 127.0.0.1:0 >"$work/registry.log" 2>&1 &
	reg=$!
	for _ in $(seq 1 100); do
		port=$(sed -n 's/.*serving on port \([0-9][0-9]*\).*/\1/p' "$work/registry.log")
		[ -n "$port" ] && break
		kill -0 "$reg" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$port" ]; then
		log "the scratch registry did not start: $(cat "$work/registry.log")"
		kill "$reg" 2>/dev/null || true
		rm -rf "$work"
		return 1
	fi
	local scratch="127.0.0.1:$port/pause:$PAUSE_VERSION" rc=0
	mkdir -p "$PAUSE_DIR.tmp"
	"$CRANE_DIR/crane" append --oci-empty-base -f "$work/layer.tar" -t "$scratch" >/dev/null &&
		"$CRANE_DIR/crane" mutate --entrypoint /pause --set-platform "linux/$(go env GOARCH)" \
			-t "$PAUSE_IMAGE" -o "$PAUSE_DIR.tmp/pause.tar" "$scratch" || rc=$?
	kill "$reg" 2>/dev/null || true
	wait "$reg" 2>/dev/null || true
	rm -rf "$work"
	[ "$rc" -eq 0 ] || { rm -rf "$PAUSE_DIR.tmp"; return "$rc"; }
	rm -rf "$PAUSE_DIR" && mv "$PAUSE_DIR.tmp" "$PAUSE_DIR"
}

node_tools() { node_debs; kube_node; containerd_bin; pause_image; }

print_env() {
	cat <<EOT
ORDERHUB_CACHE=$ORDERHUB_CACHE
KUBEBUILDER_ASSETS=$K8S_DIR
ORDERHUB_K8S_DIR=$K8S_DIR
ORDERHUB_CHAINSAW=$CHAINSAW_DIR/chainsaw
ORDERHUB_CONTROLLER_GEN=$CONTROLLER_GEN_DIR/controller-gen
ORDERHUB_KORC_DIR=$KORC_DIR
ORDERHUB_ESO_DIR=$ESO_DIR
ORDERHUB_VAULT=$VAULT_DIR/vault
ORDERHUB_CRANE=$CRANE_DIR/crane
ORDERHUB_CA_CERTIFICATES=$CA_CERTIFICATES_DIR/ca-certificates.crt
ORDERHUB_CA_CERTIFICATES_VERSION=$CA_CERTIFICATES_VERSION
ORDERHUB_CA_CERTIFICATES_SHA256=$CA_CERTIFICATES_SHA256
ORDERHUB_KUBE_NODE_DIR=$KUBE_NODE_DIR
ORDERHUB_CONTAINERD_DIR=$CONTAINERD_DIR
ORDERHUB_PAUSE_IMAGE=$PAUSE_IMAGE
ORDERHUB_PAUSE_TAR=$PAUSE_DIR/pause.tar
ORDERHUB_HELM=$HELM_DIR/helm
ORDERHUB_HELM_DOCS=$HELM_DOCS_DIR/helm-docs
ORDERHUB_MTO_DIR=$MTO_DIR
EOT
}

# cached TOOL: whether TOOL's binaries are in the cache, by the checks its
# builder starts with (hack/demo-tools.sh plans with it).
cached() {
	case "$1" in
	k8s) [ -x "$K8S_DIR/kube-apiserver" ] && [ -x "$K8S_DIR/etcd" ] && [ -x "$K8S_DIR/kube-controller-manager" ] && [ -x "$K8S_DIR/kubectl" ] ;;
	korc) [ -x "$KORC_DIR/manager" ] && [ -d "$KORC_DIR/crds" ] ;;
	eso) [ -x "$ESO_DIR/external-secrets" ] && [ -d "$ESO_DIR/crds" ] ;;
	vault) [ -x "$VAULT_DIR/vault" ] ;;
	*) return 1 ;;
	esac
}

[ $# -gt 0 ] || set -- all
if [ "$1" = cached ]; then
	cached "${2:-}"
	exit
fi
for t in "$@"; do
	case "$t" in
	all) for f in debs controller_gen k8s korc eso vault chainsaw crane ca_certificates helm mto node_debs kube_node containerd_bin pause_image; do locked "$f"; done ;;
	debs) locked debs ;;
	k8s) locked k8s ;;
	chainsaw) locked chainsaw ;;
	controller-gen) locked controller_gen ;;
	korc) locked korc ;;
	eso) locked eso ;;
	vault) locked vault ;;
	crane) locked crane ;;
	ca-certificates) locked ca_certificates ;;
	helm) locked helm ;;
	helm-docs) locked helm_docs ;;
	mto) locked mto ;;
	node) for f in node_debs kube_node containerd_bin pause_image; do locked "$f"; done ;;
	node-debs) locked node_debs ;;
	kubelet) locked kube_node ;;
	containerd) locked containerd_bin ;;
	pause) locked pause_image ;;
	env) print_env ;;
	*) log "unknown tool $t"; exit 2 ;;
	esac
done
