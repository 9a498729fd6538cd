package main

import (
	"flag"
	"strings"
	"testing"
	"time"
)

func TestEnvDuration(t *testing.T) {
	for _, tc := range []struct {
		value   string
		want    time.Duration
		wantErr bool
	}{
		{value: "", want: time.Minute},
		{value: "10", want: 10 * time.Second},
		{value: "90s", want: 90 * time.Second},
		{value: "5m", want: 5 * time.Minute},
		{value: "0", wantErr: true},
		{value: "-3s", wantErr: true},
		{value: "soon", wantErr: true},
	} {
		t.Run(tc.value, func(t *testing.T) {
			t.Setenv("ORDERHUB_TEST_INTERVAL", tc.value)
			got, err := envDuration("ORDERHUB_TEST_INTERVAL", time.Minute)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("envDuration(%q) = %s, want an error", tc.value, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("envDuration(%q) = %s, %v; want %s", tc.value, got, err, tc.want)
			}
		})
	}
}

func TestMetricsOptions(t *testing.T) {
	var m managerFlags
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	m.register(fs, "hub")
	if err := fs.Parse([]string{"--metrics-bind-address=:8443"}); err != nil {
		t.Fatal(err)
	}
	o := m.metricsOptions()
	if !o.SecureServing || o.FilterProvider == nil || o.BindAddress != ":8443" {
		t.Errorf("default metrics options: secure=%v filter=%v addr=%q; want HTTPS with the authn/authz filter on :8443", o.SecureServing, o.FilterProvider != nil, o.BindAddress)
	}
	if err := fs.Parse([]string{"--metrics-secure=false"}); err != nil {
		t.Fatal(err)
	}
	if o := m.metricsOptions(); o.SecureServing || o.FilterProvider != nil {
		t.Errorf("--metrics-secure=false still serves HTTPS or filters")
	}
}

func TestCertRotatorNeedsNamespaceAndCertDir(t *testing.T) {
	var c certRotationFlags
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	c.register(fs)
	if err := fs.Parse([]string{"--webhook-cert-rotation", "--webhook-service=oh-webhook", "--webhook-cert-secret=oh-cert",
		"--webhook-mutating-configuration=oh-m", "--webhook-validating-configuration=oh-v"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.rotator("", "/certs", make(chan struct{})); err == nil || !strings.Contains(err.Error(), "POD_NAMESPACE") {
		t.Errorf("no namespace: err = %v, want one naming POD_NAMESPACE", err)
	}
	if _, err := c.rotator("orderhub", "", make(chan struct{})); err == nil || !strings.Contains(err.Error(), "--webhook-cert-dir") {
		t.Errorf("no cert dir: err = %v, want one naming --webhook-cert-dir", err)
	}
	r, err := c.rotator("orderhub", "/certs", make(chan struct{}))
	if err != nil {
		t.Fatal(err)
	}
	if r.SecretKey.String() != "orderhub/oh-cert" || r.DNSName != "oh-webhook.orderhub.svc" || r.CertDir != "/certs" {
		t.Errorf("rotator secret %s, DNS name %s, cert dir %s", r.SecretKey, r.DNSName, r.CertDir)
	}
	if len(r.Webhooks) != 2 || r.Webhooks[0].Name != "oh-m" || r.Webhooks[1].Name != "oh-v" {
		t.Errorf("rotator webhooks %+v, want oh-m (mutating) and oh-v (validating)", r.Webhooks)
	}
}

func TestHubRefusesRotationWithURLBase(t *testing.T) {
	err := runHubContext(t.Context(), []string{"--webhook-cert-rotation", "--webhook-url-base=https://127.0.0.1:9443", "--webhook-cert-dir=" + t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "exclude each other") {
		t.Fatalf("err = %v, want the two modes refused together", err)
	}
}
