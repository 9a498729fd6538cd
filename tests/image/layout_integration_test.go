//go:build integration

package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// ociLayout is an OCI image layout read from a tarball: file name -> bytes
// (https://github.com/opencontainers/image-spec/blob/main/image-layout.md).
type ociLayout map[string][]byte

// descriptor, index and manifest are the parts of the OCI image spec the
// test reads.
type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations"`
	Platform    *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	} `json:"platform"`
}

type index struct {
	MediaType string       `json:"mediaType"`
	Manifests []descriptor `json:"manifests"`
}

type manifest struct {
	Config descriptor   `json:"config"`
	Layers []descriptor `json:"layers"`
}

// imageConfig is the part of an image config the test reads.
type imageConfig struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	Config       struct {
		User       string   `json:"User"`
		Entrypoint []string `json:"Entrypoint"`
	} `json:"config"`
}

// readLayout reads every file of the tarball at path.
func readLayout(t *testing.T, path string) ociLayout {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := ociLayout{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if out[h.Name], err = io.ReadAll(tr); err != nil {
			t.Fatal(err)
		}
	}
}

// blob returns the blob of digest d ("sha256:<hex>").
func (l ociLayout) blob(t *testing.T, d string) []byte {
	t.Helper()
	b, ok := l["blobs/"+strings.Replace(d, ":", "/", 1)]
	if !ok {
		t.Fatalf("no blob %s in the layout", d)
	}
	return b
}

// decode unmarshals the blob of d into v.
func (l ociLayout) decode(t *testing.T, d string, v any) {
	t.Helper()
	if err := json.Unmarshal(l.blob(t, d), v); err != nil {
		t.Fatalf("blob %s: %v", d, err)
	}
}

// layerFiles returns the regular files of a gzip tar layer: name -> bytes,
// and their tar headers.
func layerFiles(b []byte) (map[string][]byte, map[string]*tar.Header, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, nil, err
	}
	files, headers := map[string][]byte{}, map[string]*tar.Header{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, headers, nil
		}
		if err != nil {
			return nil, nil, err
		}
		headers[h.Name] = h
		if h.Typeflag == tar.TypeReg {
			if files[h.Name], err = io.ReadAll(tr); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", h.Name, err)
			}
		}
	}
}
