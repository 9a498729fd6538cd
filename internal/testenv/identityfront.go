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
// calls to this front, the endpoint the catalog names. Down closes it: a
// dial is refused, as for an identity endpoint that is down.
type IdentityFront struct {
	tb     testing.TB
	addr   string // host:port, fixed for the front's life
	target *url.URL

	mu  sync.Mutex
	srv *http.Server
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
	f := &IdentityFront{tb: tb, addr: l.Addr().String(), target: target}
	f.serve(l)
	tb.Cleanup(f.Down)
	return f
}

// URL is the front's identity URL (…/v3), as registered in the catalog.
func (f *IdentityFront) URL() string { return "http://" + f.addr + "/v3" }

func (f *IdentityFront) serve(l net.Listener) {
	f.srv = &http.Server{Handler: httputil.NewSingleHostReverseProxy(f.target), ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = f.srv.Serve(l) }()
}

// Down closes the listener and every open connection.
func (f *IdentityFront) Down() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.srv != nil {
		_ = f.srv.Close()
		f.srv = nil
	}
}

// Up serves again on the same port.
func (f *IdentityFront) Up() {
	f.tb.Helper()
	f.mu.Lock()
	running := f.srv != nil
	f.mu.Unlock()
	if running {
		return
	}
	var l net.Listener
	Eventually(f.tb, time.Minute, "listen on "+f.addr+" again", func() error {
		var err error
		l, err = net.Listen("tcp", f.addr)
		return err
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	f.serve(l)
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
