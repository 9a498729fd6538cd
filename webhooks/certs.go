package webhooks

// Self-signed serving certificates for the webhook server.
//
// Why not cert-manager: the local stack (internal/testenv, `make demo`) has no
// cert-manager, no Service and no Helm; the API server reaches the hub by URL
// on https://127.0.0.1:<port>. The hub is both the server and the registrar of
// its webhooks there, so it can mint a CA, sign its own serving certificate
// and put the CA into the webhook configurations in one step, with
// client-go's certificate helpers and no extra moving part to install, wait
// for, or keep in sync. In-cluster deployments (charts/orderhub, config/default)
// use a Service instead, with a certificate that either the hub rotates
// itself through github.com/open-policy-agent/cert-controller
// (--webhook-cert-rotation, cmd/orderhub/hubcerts.go) or cert-manager issues,
// mounted into --webhook-cert-dir.

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/util/cert"
)

// File names in a certificate directory. tls.crt and tls.key are what
// controller-runtime's webhook server reads by default.
const (
	CACertFile  = "ca.crt"
	CertFile    = "tls.crt"
	KeyFile     = "tls.key"
	certRenewal = 24 * time.Hour
)

// CertBundle is a CA and a serving certificate it signed, all PEM.
type CertBundle struct {
	CACert []byte
	Cert   []byte
	Key    []byte
}

// GenerateSelfSigned mints a fresh CA and a serving certificate it signed
// for hosts (IP addresses become IP SANs, anything else DNS SANs; the first
// host is the subject), valid from an hour ago until validity from now,
// with client-go's k8s.io/client-go/util/cert. It returns an error for an
// empty host list or a non-positive validity.
func GenerateSelfSigned(hosts []string, validity time.Duration) (*CertBundle, error) {
	if len(hosts) == 0 {
		return nil, errors.New("no hosts for the serving certificate")
	}
	if validity <= 0 {
		return nil, fmt.Errorf("validity %s is not positive", validity)
	}
	opts := cert.SelfSignedCertKeyOptions{Host: hosts[0], MaxAge: validity + clockSkew}
	for _, h := range hosts[1:] {
		if ip := net.ParseIP(h); ip != nil {
			opts.AlternateIPs = append(opts.AlternateIPs, ip)
		} else {
			opts.AlternateDNS = append(opts.AlternateDNS, h)
		}
	}
	chain, key, err := cert.GenerateSelfSignedCertKeyWithOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	// The chain is the serving certificate followed by its CA.
	leaf, rest := pem.Decode(chain)
	ca, _ := pem.Decode(rest)
	if leaf == nil || ca == nil {
		return nil, errors.New("self-signed certificate: client-go returned no certificate and CA")
	}
	return &CertBundle{CACert: pem.EncodeToMemory(ca), Cert: pem.EncodeToMemory(leaf), Key: key}, nil
}

// clockSkew is how far before now client-go's certificates start: the
// validity GenerateSelfSigned promises counts from now.
const clockSkew = time.Hour

// Write stores the bundle in dir as ca.crt, tls.crt and tls.key (key mode
// 0600), creating dir if needed.
func (b *CertBundle) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, data := range map[string][]byte{CACertFile: b.CACert, CertFile: b.Cert, KeyFile: b.Key} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	return nil
}

// EnsureSelfSigned returns the bundle in dir when it is complete, covers
// hosts and stays valid for more than a day; otherwise it mints a new one
// valid for a year and writes it to dir.
func EnsureSelfSigned(dir string, hosts []string) (*CertBundle, error) {
	if b, err := readBundle(dir); err == nil && b.covers(hosts, time.Now().Add(certRenewal)) {
		return b, nil
	}
	b, err := GenerateSelfSigned(hosts, 365*24*time.Hour)
	if err != nil {
		return nil, err
	}
	if err := b.Write(dir); err != nil {
		return nil, err
	}
	return b, nil
}

func readBundle(dir string) (*CertBundle, error) {
	var b CertBundle
	var err error
	if b.CACert, err = os.ReadFile(filepath.Join(dir, CACertFile)); err != nil {
		return nil, err
	}
	if b.Cert, err = os.ReadFile(filepath.Join(dir, CertFile)); err != nil {
		return nil, err
	}
	if b.Key, err = os.ReadFile(filepath.Join(dir, KeyFile)); err != nil {
		return nil, err
	}
	if _, err := tls.X509KeyPair(b.Cert, b.Key); err != nil {
		return nil, err
	}
	return &b, nil
}

// covers reports whether the serving certificate chains to the CA, names
// every host and is still valid at the given time.
func (b *CertBundle) covers(hosts []string, at time.Time) bool {
	block, _ := pem.Decode(b.Cert)
	if block == nil {
		return false
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return false
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b.CACert) {
		return false
	}
	for _, h := range hosts {
		if _, err := cert.Verify(x509.VerifyOptions{DNSName: h, Roots: pool, CurrentTime: at}); err != nil {
			return false
		}
	}
	return true
}
