// Package version holds the orderhub version, set at build time with
//
//	go build -ldflags "-X github.com/c5c3/orderhub/internal/version.Version=v0.1.0"
//
// (make build and make image do this), and the User-Agent the Keystone,
// RabbitMQ and OpenBao clients send with it.
package version

import "net/http"

// Version is the release this binary was built from; "dev" when built
// without the ldflags above (go run, go test).
var Version = "dev"

// UserAgent is the product token orderhub sends to Keystone, the RabbitMQ
// management API and OpenBao: orderhub/<Version>.
func UserAgent() string { return "orderhub/" + Version }

// Transport wraps next (http.DefaultTransport when nil) so every request
// carries UserAgent, prepended to any User-Agent already set. For clients
// without a User-Agent setting of their own (rabbit-hole).
func Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return userAgentTransport{next: next}
}

type userAgentTransport struct{ next http.RoundTripper }

func (t userAgentTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	ua := UserAgent()
	if cur := req.Header.Get("User-Agent"); cur != "" {
		ua += " " + cur
	}
	r.Header.Set("User-Agent", ua)
	return t.next.RoundTrip(r)
}
