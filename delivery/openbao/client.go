package openbao

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	bao "github.com/openbao/openbao/api/v2"

	"github.com/c5c3/orderhub/internal/version"
)

// Config selects the OpenBao server and how to authenticate to it.
type Config struct {
	// Address is the server URL, e.g. https://openbao.openbao-system.svc:8200
	// (http or https, no path). Required.
	Address string
	// Token authenticates every request. Required: the factory does not fall
	// back to BAO_TOKEN/VAULT_TOKEN from the environment.
	Token string
	// CACert is a PEM CA bundle to verify an https Address with. Optional;
	// without it (and without CAFile) the system roots are used.
	CACert []byte
	// CAFile is the path of a PEM CA bundle, used when CACert is empty.
	CAFile string
	// Namespace is the OpenBao namespace header; empty for the root namespace.
	Namespace string
	// Timeout bounds each request; zero means 30 s.
	Timeout time.Duration
}

// DefaultTimeout is the request timeout when Config.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// NewClient returns an api/v2 client for cfg. It fails when the address is
// not an http(s) URL, the token is empty, or the CA cannot be loaded. The
// client does not retry on 5xx beyond the library's default (2 retries).
// Environment variables (BAO_ADDR, BAO_TOKEN, ...) read by the library's
// defaults are overridden by cfg.
func NewClient(cfg Config) (*bao.Client, error) {
	u, err := url.Parse(cfg.Address)
	if cfg.Address == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openbao: address %q is not an http(s) URL", cfg.Address)
	}
	if cfg.Token == "" {
		return nil, errors.New("openbao: no token")
	}
	c := bao.DefaultConfig()
	if c.Error != nil {
		return nil, fmt.Errorf("openbao: default config: %w", c.Error)
	}
	c.Address = cfg.Address
	c.Timeout = cfg.Timeout
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if len(cfg.CACert) > 0 || cfg.CAFile != "" {
		if err := c.ConfigureTLS(&bao.TLSConfig{CACertBytes: cfg.CACert, CACert: cfg.CAFile}); err != nil {
			return nil, fmt.Errorf("openbao: configure TLS: %w", err)
		}
	}
	cl, err := bao.NewClient(c)
	if err != nil {
		return nil, fmt.Errorf("openbao: new client: %w", err)
	}
	cl.AddHeader("User-Agent", version.UserAgent())
	cl.SetToken(cfg.Token)
	cl.SetNamespace(cfg.Namespace)
	return cl, nil
}
