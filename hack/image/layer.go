package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"time"
)

// passwd and group name root and the non-root user 65532 (nonroot) the
// image runs as.
const (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group  = "root:x:0:\nnonroot:x:65532:\n"
)

// layerTar returns the image's one layer as an uncompressed tar: /orderhub
// (0755), the CA bundle at /etc/ssl/certs/ca-certificates.crt, /etc/passwd,
// /etc/group and an empty /tmp (1777), owned by root, every time the epoch,
// in a fixed order, so the same inputs give the same layer digest.
func layerTar(bin, caBundle string) ([]byte, error) {
	binData, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	caData, err := os.ReadFile(caBundle)
	if err != nil {
		return nil, err
	}
	entries := []struct {
		name string
		mode int64
		data []byte
		dir  bool
	}{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/ssl/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: caData},
		{name: "orderhub", mode: 0o755, data: binData},
		{name: "tmp/", mode: 0o1777, dir: true},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.data)), Typeflag: tar.TypeReg,
			ModTime: time.Unix(0, 0)}
		if e.dir {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := io.Copy(tw, bytes.NewReader(e.data)); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
