// Module of hack/image, the builder of the orderhub image index and its SBOM
// (make image, hack/image.sh). A separate module so that its libraries
// (go-containerregistry, spdx/tools-golang) stay out of the operator's go.mod.
module github.com/c5c3/orderhub/hack/image

go 1.26.0

require (
	github.com/google/go-containerregistry v0.22.1
	github.com/spdx/tools-golang v0.5.7
)

require (
	github.com/anchore/go-struct-converter v0.1.0 // indirect
	github.com/klauspost/compress v1.19.2 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/opencontainers/image-spec v1.1.1 // indirect
	golang.org/x/sync v0.22.0 // indirect
)
