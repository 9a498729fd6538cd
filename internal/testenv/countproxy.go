package testenv

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CountingProxy is a reverse proxy on a free loopback port that forwards
// every request to one target and counts them by HTTP method. It lets a
// benchmark count what a controller process sends to a backend (Keystone,
// the RabbitMQ management API, the kube-apiserver) by pointing that
// process at URL instead of the backend.
type CountingProxy struct {
	// URL is the proxy's base, http://127.0.0.1:<port>.
	URL string

	srv *http.Server
	mu  sync.Mutex
	n   map[string]int64
	// byResource counts "<method> <resource>" (KubeResource of the path).
	byResource map[string]int64
	// byClass counts the non-empty classes of CountingProxyOptions.Classify.
	byClass map[string]int64
}

// CountingProxyOptions tune NewCountingProxy.
type CountingProxyOptions struct {
	// CAFile is a PEM bundle that verifies an https target (the
	// apiserver's Kube.CAFile); empty uses the system roots.
	CAFile string
	// RewriteHost replaces the target's host:port with the proxy's in
	// response bodies, so the addresses a backend hands out point back at
	// the proxy (Keystone's service catalog names its own endpoint; a
	// client that follows the catalog would otherwise bypass the count).
	RewriteHost bool
	// BearerToken, when set, is sent as the Authorization of every
	// forwarded request. client-go sends no token to a plain-http server,
	// so a kubeconfig pointing at the proxy carries none; the proxy adds it.
	BearerToken string
	// Refuse, when set, is asked for every request: a non-zero HTTP status
	// is answered with body instead of forwarding (a fault in front of the
	// real backend, such as a Keystone policy that refuses one call).
	Refuse func(r *http.Request) (status int, body string)
	// Classify, when set, is asked for every request with its body (read
	// and put back; at most 1 MiB is read): a non-empty class is counted
	// (CountsByClass), such as the Keystone logins that hash a password.
	Classify func(r *http.Request, body []byte) string
}

// NewCountingProxy starts a proxy in front of target (a base URL such as
// http://127.0.0.1:5000 or https://127.0.0.1:6443; a path is ignored).
// Streaming responses (watches) are flushed as they arrive. Errors: an
// invalid target, an unreadable CAFile, no free port.
func NewCountingProxy(target string, o CountingProxyOptions) (*CountingProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	u.Path, u.RawQuery = "", ""
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 256
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no PEM certificates", o.CAFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &CountingProxy{URL: "http://" + ln.Addr().String(), n: map[string]int64{}, byResource: map[string]int64{}, byClass: map[string]int64{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = tr
	rp.FlushInterval = -1
	if o.BearerToken != "" {
		director := rp.Director
		rp.Director = func(r *http.Request) {
			director(r)
			r.Header.Set("Authorization", "Bearer "+o.BearerToken)
		}
	}
	if o.RewriteHost {
		from, to := []byte(u.Host), []byte(ln.Addr().String())
		director := rp.Director
		rp.Director = func(r *http.Request) {
			director(r)
			// An uncompressed body, so the rewrite can read it.
			r.Header.Del("Accept-Encoding")
		}
		rp.ModifyResponse = func(resp *http.Response) error {
			if resp.Body == nil || resp.Header.Get("Content-Encoding") != "" {
				return nil
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			b = bytes.ReplaceAll(b, from, to)
			resp.Body = io.NopCloser(bytes.NewReader(b))
			resp.ContentLength = int64(len(b))
			resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
			return nil
		}
	}
	p.srv = &http.Server{ReadHeaderTimeout: 30 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res := KubeResource(r.URL.Path)
		class := ""
		if o.Classify != nil {
			class = classify(r, o.Classify)
		}
		p.mu.Lock()
		p.n[r.Method]++
		p.byResource[r.Method+" "+res]++
		if class != "" {
			p.byClass[class]++
		}
		p.mu.Unlock()
		if o.Refuse != nil {
			if status, body := o.Refuse(r); status != 0 {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				_, _ = io.WriteString(w, body)
				return
			}
		}
		rp.ServeHTTP(w, r)
	})}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Counts returns the number of requests forwarded so far, by method.
func (p *CountingProxy) Counts() RequestCounts { return p.snapshot(p.n) }

// snapshot copies one of p's counters under its lock.
func (p *CountingProxy) snapshot(n map[string]int64) RequestCounts {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := make(RequestCounts, len(n))
	for k, v := range n {
		c[k] = v
	}
	return c
}

// CountsByResource returns the number of requests forwarded so far by
// "<method> <resource>", the resource as KubeResource names it: which
// kinds a controller writes, for the apiserver.
func (p *CountingProxy) CountsByResource() RequestCounts { return p.snapshot(p.byResource) }

// CountsByClass returns the number of requests forwarded so far by their
// non-empty CountingProxyOptions.Classify class.
func (p *CountingProxy) CountsByClass() RequestCounts { return p.snapshot(p.byClass) }

// classify reads r's body (at most 1 MiB), puts it back and asks f.
func classify(r *http.Request, f func(*http.Request, []byte) string) string {
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		body, _ = io.ReadAll(io.LimitReader(r.Body, 1<<20))
		rest := r.Body
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), rest), rest}
	}
	return f(r, body)
}

// KubeResource is the resource (with its subresource, "secrets",
// "pushsecrets.external-secrets.io/status") a Kubernetes API path names:
// /api/v1[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]] or
// /apis/<group>/<version>[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]
// (https://kubernetes.io/docs/reference/using-api/api-concepts/). Any other
// path is returned as it is.
func KubeResource(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var group string
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		group, parts = parts[1], parts[3:]
	default:
		return path
	}
	if len(parts) >= 1 && parts[0] == "namespaces" {
		switch {
		case len(parts) <= 2:
			return "namespaces"
		case len(parts) == 3 && (parts[2] == "status" || parts[2] == "finalize"):
			return "namespaces/" + parts[2]
		}
		parts = parts[2:]
	}
	if len(parts) == 0 {
		return path
	}
	res := parts[0]
	if group != "" {
		res += "." + group
	}
	if len(parts) >= 3 {
		res += "/" + parts[2]
	}
	return res
}

// Close stops the proxy and closes its connections.
func (p *CountingProxy) Close() error { return p.srv.Close() }

// RequestCounts are request numbers by HTTP method.
type RequestCounts map[string]int64

// Total is the number of requests of every method.
func (c RequestCounts) Total() int64 {
	var t int64
	for _, v := range c {
		t += v
	}
	return t
}

// Writes is the number of requests other than GET, HEAD and OPTIONS: for
// the apiserver, the creates, updates, patches and deletes.
func (c RequestCounts) Writes() int64 {
	return c.Total() - c[http.MethodGet] - c[http.MethodHead] - c[http.MethodOptions]
}

// Sub returns c minus an earlier snapshot.
func (c RequestCounts) Sub(earlier RequestCounts) RequestCounts {
	d := make(RequestCounts, len(c))
	for k, v := range c {
		d[k] = v - earlier[k]
	}
	return d
}

// KubeconfigVia writes a kubeconfig that reaches the apiserver through
// server, a CountingProxy's plain-http URL, with no credentials: start that
// proxy with BearerToken set to the stack's admin token (Kube.Config.BearerToken).
func (k *Kube) KubeconfigVia(path, server string) error {
	return writeKubeconfig(path, server, "", nil)
}
