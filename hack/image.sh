#!/usr/bin/env bash
# Builds the orderhub image index without a Docker engine:
#
#   hack/image.sh VERSION IMAGE OUT
#
# PLATFORMS (default "linux/amd64 linux/arm64") are the platforms of the
# index; COMMIT (default: git rev-parse HEAD) is the commit `orderhub
# --version` prints.
#
# Per platform a static binary (CGO_ENABLED=0, cross-built by go build) and
# one image with one layer on an empty base: /orderhub, the CA bundle of
# Debian's ca-certificates package of the version pinned in hack/versions.sh
# (hack/tools.sh ca-certificates downloads it with apt-get and checks its
# SHA-256) at /etc/ssl/certs/ca-certificates.crt, /etc/passwd and /etc/group
# naming the non-root user 65532 (nonroot), and an empty /tmp; it runs as
# 65532:65532 with /orderhub as entrypoint. hack/image (go-containerregistry)
# gathers them in an OCI image index written to OUT as an OCI image layout
# tarball named IMAGE:VERSION, which `ctr -n k8s.io images import OUT`
# reads (importing the node's own platform), and writes beside it
# OUT.digest (the index digest, sha256:...), OUT.ref (IMAGE:VERSION) and
# OUT.spdx.json (an SPDX 2.3 SBOM of the binaries' Go modules, from their
# debug/buildinfo, and of the ca-certificates package).
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?version} image=${2:?image} out=${3:?output tarball}
platforms=${PLATFORMS:-linux/amd64 linux/arm64}
commit=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || true)}
hack/tools.sh ca-certificates
eval "$(hack/tools.sh env)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bins=()
for p in $platforms; do
	os=${p%/*} arch=${p#*/}
	CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath \
		-ldflags "-s -w -X github.com/c5c3/orderhub/internal/version.Version=$version -X github.com/c5c3/orderhub/internal/version.Commit=$commit" \
		-o "$work/orderhub-$os-$arch" ./cmd/orderhub
	bins+=(-bin "$p=$work/orderhub-$os-$arch")
done
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
(cd hack/image && go build -o "$work/image" .)
"$work/image" -version "$version" -commit "$commit" -image "$image" -out "$out" \
	-ca "$ORDERHUB_CA_CERTIFICATES" -ca-version "$ORDERHUB_CA_CERTIFICATES_VERSION" \
	-ca-sha256 "$ORDERHUB_CA_CERTIFICATES_SHA256" "${bins[@]}"
echo "image $image:$version@$(cat "$out.digest") ($platforms) written to $out ($(du -h "$out" | cut -f1)), SBOM $out.spdx.json"
