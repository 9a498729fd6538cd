//go:build integration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"

	"github.com/c5c3/orderhub/internal/testenv"
)

// recorder keeps the reports authloop posts, in order.
type recorder struct {
	mu      sync.Mutex
	reports []report
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var rep report
	if err := json.NewDecoder(req.Body).Decode(&rep); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.reports = append(r.reports, rep)
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (r *recorder) last() (report, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reports) == 0 {
		return report{}, false
	}
	return r.reports[len(r.reports)-1], true
}

// authloop, against a real Keystone, with an application credential in a
// clouds.yaml: it reports its successes and becomes ready (the probe
// passes); while Keystone is away it counts failures none of them rejected;
// once the credential is deleted in Keystone it counts rejected failures
// with the credential it loaded at start; on SIGTERM it exits 0 after a
// final stop report carrying its totals.
func TestAuthloop_CountsFailuresAndReportsAtStop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	st, err := testenv.Start(ctx, testenv.Options{Keystone: true, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Stop() })
	identity, err := st.AdminIdentity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	user, err := tokens.Get(ctx, identity, identity.Token()).ExtractUser()
	if err != nil {
		t.Fatal(err)
	}
	ac, err := applicationcredentials.Create(ctx, identity, user.ID, applicationcredentials.CreateOpts{Name: "authloop"}).Extract()
	if err != nil {
		t.Fatal(err)
	}

	work := t.TempDir()
	clouds := filepath.Join(work, "clouds.yaml")
	doc := fmt.Sprintf("clouds:\n  loop:\n    auth_type: v3applicationcredential\n    identity_api_version: 3\n"+
		"    auth:\n      auth_url: %s\n      application_credential_id: %s\n      application_credential_secret: %s\n",
		st.Keystone.URL, ac.ID, ac.Secret)
	if err := os.WriteFile(clouds, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(work, "authloop")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v: %s", err, out)
	}
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	ready := filepath.Join(work, "ready")
	env := append(os.Environ(), "OS_CLIENT_CONFIG_FILE="+clouds, "OS_CLOUD=loop", "AUTHLOOP_SINK="+srv.URL,
		"AUTHLOOP_INTERVAL=200ms", "AUTHLOOP_READY="+ready, "POD_NAME=loop-1")
	probe := func() error {
		c := exec.Command(bin, "probe")
		c.Env = env
		return c.Run()
	}
	if probe() == nil {
		t.Fatal("the probe passes before the first token")
	}
	cmd := exec.Command(bin)
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	testenv.Eventually(t, time.Minute, "two successes reported, probe passes", func() error {
		r, _ := rec.last()
		if r.Pod != "loop-1" || r.Credential != ac.ID || r.OK < 2 || r.Fail != 0 {
			return fmt.Errorf("last report %+v", r)
		}
		return probe()
	})
	if err := st.Kill("keystone"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "failures while Keystone is away, none rejected", func() error {
		r, _ := rec.last()
		if r.Fail < 2 || r.Rejected != 0 {
			return fmt.Errorf("last report %+v", r)
		}
		return nil
	})
	if err := st.Restart(ctx, "keystone"); err != nil {
		t.Fatal(err)
	}
	away, _ := rec.last()
	testenv.Eventually(t, time.Minute, "a success after Keystone's restart", func() error {
		if r, _ := rec.last(); r.OK <= away.OK || r.Rejected != 0 {
			return fmt.Errorf("last report %+v", r)
		}
		return nil
	})
	if err := applicationcredentials.Delete(ctx, identity, user.ID, ac.ID).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "rejected failures counted with the credential loaded at start", func() error {
		r, _ := rec.last()
		if r.Credential != ac.ID || r.Rejected < 2 || r.Fail < r.Rejected || r.Error == "" {
			return fmt.Errorf("last report %+v", r)
		}
		return nil
	})
	before, _ := rec.last()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("authloop after SIGTERM: %v, want exit 0", err)
		}
	case <-ctx.Done():
		t.Fatal("authloop did not exit after SIGTERM")
	}
	r, _ := rec.last()
	if r.Event != eventStop || r.OK < before.OK || r.Fail < before.Fail || r.Fail == 0 || r.OK < 2 {
		t.Fatalf("final report %+v, the one before SIGTERM %+v: want a stop report with the totals", r, before)
	}
}
