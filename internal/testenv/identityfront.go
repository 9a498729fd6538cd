package testenv

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/endpoints"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/regions"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
)

// IdentityFront is a second identity endpoint of the stack's Keystone: a
// reverse proxy on a loopback port of its own which RegisterIn puts into
// Keystone's catalog as the public identity endpoint of a region of its
// own. A ControlPlane in that region authenticates at the stack's Keystone
// directly (its admin credential check passes), and K-ORC then sends its
// calls to this front, the endpoint the catalog names. Drop makes it fail
// chosen calls at the transport level while it forwards the rest. (A front
// that refuses every connection would race: K-ORC retries a failed read of
// a plane's domain import, and the probes then wait on the domain instead
// of reaching the call a test is about.)
type IdentityFront struct {
	addr string // host:port
	srv  *http.Server

	mu   sync.Mutex
	drop map[string]bool // "METHOD /path" or "METHOD " (every path) closed unanswered
}

// NewIdentityFront starts a front forwarding to the Keystone at
// keystoneURL; it is closed when tb ends.
func NewIdentityFront(tb testing.TB, keystoneURL string) *IdentityFront {
	tb.Helper()
	target, err := url.Parse(keystoneURL)
	if err != nil {
		tb.Fatal(err)
	}
	target.Path = ""
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	f := &IdentityFront{addr: l.Addr().String()}
	proxy := httputil.NewSingleHostReverseProxy(target)
	f.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		drop := f.drop[r.Method+" "+r.URL.Path] || f.drop[r.Method+" "]
		f.mu.Unlock()
		if !drop {
			proxy.ServeHTTP(w, r)
			return
		}
		// Close the connection without an answer: the client sees a
		// transport error (EOF), not an HTTP status.
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
			return
		}
		panic(http.ErrAbortHandler)
	}), ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = f.srv.Serve(l) }()
	tb.Cleanup(func() { _ = f.srv.Close() })
	return f
}

// URL is the front's identity URL (…/v3), as registered in the catalog.
func (f *IdentityFront) URL() string { return "http://" + f.addr + "/v3" }

// Drop makes the front close the connection of every request of method
// on path (e.g. "POST", "/v3/projects"; the query is not compared; "" is
// every path) without answering, while it forwards every other request:
// an identity endpoint that fails one kind of call at the transport level.
func (f *IdentityFront) Drop(method, path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.drop == nil {
		f.drop = map[string]bool{}
	}
	f.drop[method+" "+path] = true
}

// Forward ends every Drop: the front forwards every request again.
func (f *IdentityFront) Forward() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.drop = nil
}

// RegisterIn creates region in Keystone (through the admin client c) with
// the front as its public identity endpoint, and removes both when tb ends.
func (f *IdentityFront) RegisterIn(tb testing.TB, c *gophercloud.ServiceClient, region string) {
	tb.Helper()
	ctx := context.Background()
	svcs := KeystoneList(tb, services.List(c, services.ListOpts{ServiceType: "identity"}), services.ExtractServices)
	if len(svcs) != 1 {
		tb.Fatalf("%d identity services in the catalog", len(svcs))
	}
	if _, err := regions.Create(ctx, c, regions.CreateOpts{ID: region}).Extract(); err != nil {
		tb.Fatal(err)
	}
	ep, err := endpoints.Create(ctx, c, endpoints.CreateOpts{Availability: gophercloud.AvailabilityPublic,
		Region: region, ServiceID: svcs[0].ID, URL: f.URL()}).Extract()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := endpoints.Delete(context.Background(), c, ep.ID).ExtractErr(); err != nil {
			tb.Errorf("removing the front's identity endpoint: %v", err)
		}
		if err := regions.Delete(context.Background(), c, region).ExtractErr(); err != nil {
			tb.Errorf("removing region %s: %v", region, err)
		}
	})
}
