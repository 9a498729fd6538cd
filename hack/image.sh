#!/usr/bin/env bash
# Builds the orderhub container image without a Docker engine, with crane
# (github.com/google/go-containerregistry/cmd/crane, built by hack/tools.sh):
#
#   hack/image.sh VERSION IMAGE OUT
#
# COMMIT (default: git rev-parse HEAD) is the commit `orderhub --version` prints.
#
# One layer on an empty base: the static binary /orderhub, the host's CA
# bundle at /etc/ssl/certs/ca-certificates.crt, /etc/passwd and /etc/group
# naming the non-root user 65532 (nonroot), and an empty /tmp. The image runs
# as 65532:65532 with /orderhub as entrypoint. It is written to OUT as an image
# tarball (the docker-archive layout crane saves) named IMAGE:VERSION, which
# `ctr -n k8s.io images import OUT` and `docker load -i OUT` read.
#
# crane mutate (entrypoint, user, labels) reads its input from a registry, so a
# throw-away in-memory registry (`crane registry serve`) on 127.0.0.1 holds the
# intermediate image; it is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?version} image=${2:?image} out=${3:?output tarball}
crane=${ORDERHUB_CRANE:?set ORDERHUB_CRANE (hack/tools.sh env)}
ca=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
[ -s "$ca" ] || { echo "image: no CA bundle at $ca (Debian: ca-certificates; or set CA_BUNDLE)" >&2; exit 1; }
arch=$(go env GOARCH)
commit=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || true)}

work=$(mktemp -d)
reg_pid=
cleanup() {
	if [ -n "$reg_pid" ]; then kill "$reg_pid" 2>/dev/null || true; wait "$reg_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

root="$work/root"
mkdir -p "$root/etc/ssl/certs" "$root/tmp"
CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -trimpath \
	-ldflags "-s -w -X github.com/c5c3/orderhub/internal/version.Version=$version -X github.com/c5c3/orderhub/internal/version.Commit=$commit" \
	-o "$root/orderhub" ./cmd/orderhub
cp "$ca" "$root/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$root/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$root/etc/group"
chmod 0755 "$root/orderhub"
chmod 0644 "$root/etc/ssl/certs/ca-certificates.crt" "$root/etc/passwd" "$root/etc/group"
chmod 1777 "$root/tmp"
# Reproducible layer: fixed order, owner and time.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$root" -cf "$work/layer.tar" .

"$crane" registry serve --address 127.0.0.1:0 2>"$work/registry.log" &
reg_pid=$!
port=
for _ in $(seq 1 100); do
	port=$(sed -n 's/.*serving on port \([0-9]*\).*/\1/p' "$work/registry.log")
	[ -n "$port" ] && break
	kill -0 "$reg_pid" 2>/dev/null || { cat "$work/registry.log" >&2; exit 1; }
	sleep 0.1
done
[ -n "$port" ] || { echo "image: the scratch registry did not start" >&2; exit 1; }
scratch="127.0.0.1:$port/orderhub:$version"

crane_run() { "$crane" "$@" >>"$work/crane.log" 2>&1 || { cat "$work/crane.log" >&2; return 1; }; }
crane_run append --oci-empty-base -f "$work/layer.tar" -t "$scratch"
mkdir -p "$(dirname "$out")"
crane_run mutate "$scratch" \
	--set-platform "linux/$arch" \
	--entrypoint /orderhub \
	--user 65532:65532 \
	--workdir / \
	--env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
	--label org.opencontainers.image.title=orderhub \
	--label org.opencontainers.image.version="$version" \
	--label org.opencontainers.image.licenses=Apache-2.0 \
	-t "$image:$version" -o "$out"
echo "$image:$version" >"$out.ref"
echo "image $image:$version written to $out ($(du -h "$out" | cut -f1))"
