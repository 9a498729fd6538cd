package webhooks

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestGenerateSelfSigned_ChainsAndNamesHosts(t *testing.T) {
	t.Parallel()
	b, err := GenerateSelfSigned([]string{"127.0.0.1", "localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.X509KeyPair(b.Cert, b.Key); err != nil {
		t.Fatalf("key pair: %v", err)
	}
	for _, h := range []string{"127.0.0.1", "localhost"} {
		if !b.covers([]string{h}, time.Now()) {
			t.Errorf("certificate does not verify for %s", h)
		}
	}
	if b.covers([]string{"10.0.0.1"}, time.Now()) {
		t.Error("certificate verifies for a host it does not name")
	}
	if b.covers([]string{"127.0.0.1"}, time.Now().Add(2*time.Hour)) {
		t.Error("certificate verifies after it expired")
	}
	block, _ := pem.Decode(b.CACert)
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil || !ca.IsCA {
		t.Fatalf("CA: %v", err)
	}
	if _, err := GenerateSelfSigned(nil, time.Hour); err == nil {
		t.Error("no hosts must be an error")
	}
}

func TestEnsureSelfSigned_ReusesAValidBundle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := EnsureSelfSigned(dir, []string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := EnsureSelfSigned(dir, []string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	if string(first.CACert) != string(again.CACert) {
		t.Fatal("a valid bundle was replaced")
	}
	other, err := EnsureSelfSigned(dir, []string{"127.0.0.2"})
	if err != nil {
		t.Fatal(err)
	}
	if string(other.CACert) == string(first.CACert) {
		t.Fatal("a bundle not naming the host was kept")
	}
	info, err := os.Stat(filepath.Join(dir, KeyFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode: %v %v", info.Mode(), err)
	}
}
