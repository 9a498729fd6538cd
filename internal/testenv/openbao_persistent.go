package testenv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	bao "github.com/openbao/openbao/api/v2"
)

// The persistent OpenBao-compatible server (Options.OpenBaoPersistent): the
// same Vault binary as the dev server, but as a real server with the file
// storage backend under <Dir>/openbao/data, so its data (the KV v2 mount,
// the backups, the tenant auth) survives a restart. Dev mode keeps everything
// in memory and cannot do that (https://developer.hashicorp.com/vault/docs/concepts/dev-server).
// Start initializes it with one key share, unseals it and mounts KV v2 at
// secret/, as dev mode does; the unseal key is kept in
// <Dir>/openbao/unseal-key (0600) and Restart unseals with it.

// openBaoConfig is the server's configuration: file storage, plain HTTP on
// loopback (the dev server's transport), no mlock (no privileges here).
func openBaoConfig(dataDir string, port int) string {
	return fmt.Sprintf(`storage "file" {
  path = %q
}
listener "tcp" {
  address     = "127.0.0.1:%d"
  tls_disable = true
}
api_addr      = "http://127.0.0.1:%[2]d"
disable_mlock = true
ui            = false
`, dataDir, port)
}

func (s *Stack) startOpenBaoPersistent(ctx context.Context) error {
	if err := need(s.tools.vault, "vault"); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	dir := filepath.Join(s.Dir, "openbao")
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o700); err != nil {
		return err
	}
	conf := filepath.Join(dir, "server.hcl")
	if err := os.WriteFile(conf, []byte(openBaoConfig(filepath.Join(dir, "data"), port)), 0o600); err != nil {
		return err
	}
	b := &OpenBao{Addr: "http://127.0.0.1:" + strconv.Itoa(port), KVMount: "secret"}
	p, err := s.startProc("openbao", s.tools.vault, []string{"server", "-config=" + conf},
		[]string{"HOME=" + dir, "VAULT_DISABLE_MLOCK=true"}, s.Dir)
	if err != nil {
		return err
	}
	c, err := bao.NewClient(&bao.Config{Address: b.Addr, Timeout: 10 * time.Second})
	if err != nil {
		return err
	}
	if err := waitFor(ctx, "openbao", p, time.Minute, func(ctx context.Context) error {
		_, err := c.Sys().InitStatusWithContext(ctx)
		return err
	}); err != nil {
		return err
	}
	init, err := c.Sys().InitWithContext(ctx, &bao.InitRequest{SecretShares: 1, SecretThreshold: 1})
	if err != nil {
		return fmt.Errorf("openbao init: %w", err)
	}
	if len(init.KeysB64) != 1 || init.RootToken == "" {
		return errors.New("openbao init: no unseal key or root token returned")
	}
	if err := os.WriteFile(filepath.Join(dir, "unseal-key"), []byte(init.KeysB64[0]), 0o600); err != nil {
		return err
	}
	b.Token = init.RootToken
	s.OpenBao = b
	if err := waitFor(ctx, "openbao unseal", p, time.Minute, s.unsealOpenBao); err != nil {
		return err
	}
	c.SetToken(b.Token)
	if err := c.Sys().MountWithContext(ctx, b.KVMount, &bao.MountInput{Type: "kv", Options: map[string]string{"version": "2"}}); err != nil {
		return fmt.Errorf("openbao: mount KV v2 at %s: %w", b.KVMount, err)
	}
	// A new KV v2 mount answers 4xx while it upgrades; wait until it serves.
	return waitFor(ctx, "openbao KV v2 mount", p, time.Minute, func(ctx context.Context) error {
		_, err := c.Logical().ReadWithContext(ctx, b.KVMount+"/config")
		return err
	})
}

// unsealOpenBao unseals the persistent server with the kept key and checks
// that it is active (sys/health answers 200 only when initialized, unsealed
// and active).
func (s *Stack) unsealOpenBao(ctx context.Context) error {
	key, err := os.ReadFile(filepath.Join(s.Dir, "openbao", "unseal-key"))
	if err != nil {
		return err
	}
	c, err := bao.NewClient(&bao.Config{Address: s.OpenBao.Addr, Timeout: 10 * time.Second})
	if err != nil {
		return err
	}
	st, err := c.Sys().SealStatusWithContext(ctx)
	if err != nil {
		return err
	}
	if st.Sealed {
		if _, err := c.Sys().UnsealWithContext(ctx, string(key)); err != nil {
			return err
		}
	}
	return httpOK(ctx, http.DefaultClient, s.OpenBao.Addr+"/v1/sys/health", nil)
}
