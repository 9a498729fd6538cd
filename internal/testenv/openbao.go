package testenv

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"github.com/c5c3/orderhub/delivery/openbao"
)

// OpenBao is a running OpenBao-compatible server: HashiCorp Vault v1.14.1
// (the MPL-2.0 release OpenBao forked from) in dev mode, in memory, with a KV
// v2 engine at KVMount. The OpenBao server itself cannot be obtained here.
type OpenBao struct {
	// Addr is http://127.0.0.1:<port>, as BAO_ADDR / VAULT_ADDR take it.
	Addr string
	// Token is the root token.
	Token string
	// KVMount is the KV v2 mount path ("secret").
	KVMount string
	// AuthMount, AuthAccessor, Role and ServiceAccount describe the tenant
	// auth (openbao_auth.go: Kubernetes auth against the stack's
	// kube-apiserver); set when the stack runs Kube too, empty otherwise.
	AuthMount, AuthAccessor, Role, ServiceAccount string
}

func (s *Stack) startOpenBao(ctx context.Context) error {
	if s.opts.OpenBaoPersistent {
		return s.startOpenBaoPersistent(ctx)
	}
	if err := need(s.tools.vault, "vault"); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	b := &OpenBao{Addr: fmt.Sprintf("http://127.0.0.1:%d", port), Token: "root-" + randomHex(12), KVMount: "secret"}
	dir := filepath.Join(s.Dir, "openbao")
	// The root token goes in the environment (the -dev-root-token-id flag's
	// VAULT_DEV_ROOT_TOKEN_ID), never on the command line: /proc/<pid>/cmdline
	// is readable by every user of the machine, /proc/<pid>/environ only by
	// the owner. The dev server prints it into its log, which startProc
	// keeps private (0600).
	p, err := s.startProc("openbao", s.tools.vault, []string{"server", "-dev",
		"-dev-listen-address=127.0.0.1:" + strconv.Itoa(port), "-dev-no-store-token"},
		[]string{"HOME=" + dir, "VAULT_DISABLE_MLOCK=true", "VAULT_DEV_ROOT_TOKEN_ID=" + b.Token}, s.Dir)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, "openbao", p, time.Minute, func(ctx context.Context) error {
		// sys/health answers 200 only when initialized, unsealed and active.
		return httpOK(ctx, http.DefaultClient, b.Addr+"/v1/sys/health", nil)
	}); err != nil {
		return err
	}
	s.OpenBao = b
	return nil
}

// KV returns a KV v2 client of the stack's OpenBao-compatible server at its
// mount, with the root token: the tests' own view of the backups. Errors:
// the stack runs no OpenBao, or the client could not be built.
func (s *Stack) KV() (*openbao.KV, error) {
	if s.OpenBao == nil {
		return nil, fmt.Errorf("testenv: the stack runs no OpenBao-compatible server")
	}
	c, err := s.rootClient()
	if err != nil {
		return nil, err
	}
	return openbao.NewKV(c, s.OpenBao.KVMount), nil
}
