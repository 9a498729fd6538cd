package openbao

import (
	"strings"
	"testing"
)

func TestNewClient(t *testing.T) {
	t.Setenv("BAO_TOKEN", "from-env")
	t.Setenv("VAULT_TOKEN", "from-env")
	c, err := NewClient(Config{Address: "http://127.0.0.1:8200", Token: "t0ken", Namespace: "ns1"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Token() != "t0ken" || c.Address() != "http://127.0.0.1:8200" || c.Namespace() != "ns1" {
		t.Fatalf("client %s %s", c.Address(), c.Namespace())
	}
	for name, cfg := range map[string]Config{
		"no address":   {Token: "t"},
		"bad scheme":   {Address: "ftp://x", Token: "t"},
		"no host":      {Address: "http://", Token: "t"},
		"no token":     {Address: "http://x"},
		"bad CA bytes": {Address: "https://x", Token: "t", CACert: []byte("not a pem")},
		"missing CA":   {Address: "https://x", Token: "t", CAFile: "/nonexistent/ca.pem"},
	} {
		cfg.Token = strings.Repeat(cfg.Token, 8) // a recognisable token, if any
		_, err := NewClient(cfg)
		if err == nil {
			t.Errorf("%s: accepted", name)
		} else if cfg.Token != "" && strings.Contains(err.Error(), cfg.Token) {
			t.Errorf("%s: error carries the token: %v", name, err)
		}
	}
}
