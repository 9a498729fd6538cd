// Package version holds the orderhub version and commit, set at build time
// with
//
//	go build -ldflags "-X github.com/c5c3/orderhub/internal/version.Version=v0.1.0 \
//	  -X github.com/c5c3/orderhub/internal/version.Commit=<git rev-parse HEAD>"
//
// (make build and make image do this), the line --version prints, and the
// User-Agent the Keystone, RabbitMQ and OpenBao clients send.
package version

import (
	"fmt"
	"net/http"
	"runtime"
	"runtime/debug"
)

// Version is the release this binary was built from; "dev" when built
// without the ldflags above (go run, go test).
var Version = "dev"

// Commit is the VCS revision this binary was built from; empty when built
// without the ldflags above, and then Info falls back to the revision the Go
// toolchain stamps (vcs.revision, unless built with -buildvcs=false).
var Commit = ""

// Info is the line `orderhub --version` and `orderhub <subcommand> --version`
// print: "orderhub <Version> commit <revision> <Go version> <GOOS>/<GOARCH>",
// the revision "unknown" when neither source has one.
func Info() string {
	var settings []debug.BuildSetting
	if bi, ok := debug.ReadBuildInfo(); ok {
		settings = bi.Settings
	}
	return fmt.Sprintf("orderhub %s commit %s %s %s/%s", Version, commitOf(Commit, settings), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// commitOf is ldflag when set, else the build info's vcs.revision with
// "-dirty" when vcs.modified is true, else "unknown".
func commitOf(ldflag string, settings []debug.BuildSetting) string {
	if ldflag != "" {
		return ldflag
	}
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev == "":
		return "unknown"
	case dirty:
		return rev + "-dirty"
	}
	return rev
}

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
