// Command authloop is a credential consumer for the pod test
// (tests/consumers, hack/soak): it loads a clouds.yaml once at start, as a workload
// does, with gophercloud's parser (OS_CLIENT_CONFIG_FILE, OS_CLOUD), then
// requests a Keystone token every AUTHLOOP_INTERVAL and counts successes
// and failures, and of the failures those Keystone rejected (401, 403 or
// 404: the credential's fault, unlike an unreachable Keystone). After each
// attempt it posts its counts to AUTHLOOP_SINK (JSON, see report); on
// SIGTERM it cancels a request in flight, posts a final "stop" report and
// exits 0, so the test reads the counts of every pod, also of those a
// rollout ended.
// It writes AUTHLOOP_READY after its first success; `authloop probe` (the
// readiness probe) succeeds once that file exists.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/config/clouds"
)

// Events of a report.
const (
	eventStart   = "start"
	eventAttempt = "attempt"
	eventStop    = "stop"
)

// report is what authloop posts to the sink; the test decodes the same shape.
type report struct {
	Pod        string `json:"pod"`
	Credential string `json:"credential"`
	Event      string `json:"event"`
	OK         int    `json:"ok"`
	Fail       int    `json:"fail"`
	// Rejected counts the failures Keystone answered with 401, 403 or 404.
	Rejected int    `json:"rejected"`
	Error    string `json:"error,omitempty"`
}

func main() {
	ready := env("AUTHLOOP_READY", "/run/authloop/ready")
	if len(os.Args) > 1 && os.Args[1] == "probe" {
		if _, err := os.Stat(ready); err != nil {
			os.Exit(1)
		}
		return
	}
	interval, err := time.ParseDuration(env("AUTHLOOP_INTERVAL", "500ms"))
	if err != nil {
		fatal(err)
	}
	ao, _, _, err := clouds.Parse(clouds.WithLocations(os.Getenv("OS_CLIENT_CONFIG_FILE")),
		clouds.WithCloudName(os.Getenv("OS_CLOUD")))
	if err != nil {
		fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	r := report{Pod: env("POD_NAME", "unknown"), Credential: credential(ao), Event: eventStart}
	sink := os.Getenv("AUTHLOOP_SINK")
	send(sink, r)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			r.Event, r.Error = eventStop, ""
			for try := 0; try < 3 && !send(sink, r); try++ {
			}
			return
		case <-tick.C:
		}
		// SIGTERM cancels a request in flight, so the stop report goes out
		// within the grace period also while Keystone is slow; that request
		// is not counted.
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := openstack.AuthenticatedClient(actx, ao)
		cancel()
		if ctx.Err() != nil {
			continue
		}
		r.Event, r.Error = eventAttempt, ""
		if err != nil {
			r.Fail++
			if rejected(err) {
				r.Rejected++
			}
			r.Error = err.Error()
		} else {
			if r.OK == 0 {
				if werr := os.WriteFile(ready, nil, 0o644); werr != nil {
					fatal(werr)
				}
			}
			r.OK++
		}
		send(sink, r)
	}
}

// send prints r and posts it to sink (when set), reporting whether the sink
// took it; a lost report loses nothing else: every report carries the totals.
func send(sink string, r report) bool {
	b, _ := json.Marshal(r)
	fmt.Println(string(b))
	if sink == "" {
		return true
	}
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Post(sink, "application/json", bytes.NewReader(b))
	if err != nil {
		fmt.Fprintln(os.Stderr, "sink:", err)
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusNoContent
}

// credential names what was loaded: the application credential's id, else
// "password:" and the first 12 hex digits of the password's SHA-256 (so
// two password generations differ without the password being posted).
func credential(ao gophercloud.AuthOptions) string {
	if ao.ApplicationCredentialID != "" {
		return ao.ApplicationCredentialID
	}
	sum := sha256.Sum256([]byte(ao.Password))
	return "password:" + hex.EncodeToString(sum[:])[:12]
}

// rejected reports whether Keystone answered err with 401, 403 or 404 (the
// credential was refused), not whether it could not be reached.
func rejected(err error) bool {
	for _, code := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound} {
		if gophercloud.ResponseCodeIs(err, code) {
			return true
		}
	}
	return false
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "authloop:", err)
	os.Exit(1)
}
