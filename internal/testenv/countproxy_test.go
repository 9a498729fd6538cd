package testenv

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The proxy counts what it forwards by method and, with RewriteHost, hands
// out its own address where the backend names itself (as Keystone's catalog does).
func TestCountingProxy_CountsAndRewrites(t *testing.T) {
	var backend *httptest.Server
	backend = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"url": "`+backend.URL+`/v3"}`)
	}))
	defer backend.Close()
	p, err := NewCountingProxy(backend.URL, CountingProxyOptions{RewriteHost: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	before := p.Counts()
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPost, http.MethodDelete} {
		req, _ := http.NewRequest(m, p.URL+"/v3/projects", strings.NewReader("{}"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := `{"url": "` + p.URL + `/v3"}`; string(body) != want {
			t.Fatalf("%s body %q, want %q", m, body, want)
		}
	}
	c := p.Counts().Sub(before)
	if c.Total() != 4 || c.Writes() != 3 || c[http.MethodPost] != 2 {
		t.Fatalf("counts %v: want 4 requests, 3 writes, 2 POST", c)
	}
}

// With BearerToken the proxy authenticates every request itself (client-go
// sends no token to a plain-http server).
func TestCountingProxy_AddsBearerToken(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Header.Get("Authorization"))
	}))
	defer backend.Close()
	p, err := NewCountingProxy(backend.URL, CountingProxyOptions{BearerToken: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	resp, err := http.Get(p.URL + "/api")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); string(b) != "Bearer tok" {
		t.Fatalf("backend saw Authorization %q, want %q", b, "Bearer tok")
	}
}

func TestKubeResource(t *testing.T) {
	for path, want := range map[string]string{
		"/api/v1/namespaces/a/secrets":                                          "secrets",
		"/api/v1/namespaces/a/secrets/s":                                        "secrets",
		"/api/v1/namespaces/a/events":                                           "events",
		"/api/v1/namespaces":                                                    "namespaces",
		"/api/v1/namespaces/a":                                                  "namespaces",
		"/api/v1/namespaces/a/finalize":                                         "namespaces/finalize",
		"/api/v1/nodes/n1/status":                                               "nodes/status",
		"/apis/c5c3.io/v1alpha1/namespaces/a/keystoneusers/u/status":            "keystoneusers.c5c3.io/status",
		"/apis/external-secrets.io/v1alpha1/namespaces/a/pushsecrets/p":         "pushsecrets.external-secrets.io",
		"/apis/coordination.k8s.io/v1/namespaces/a/leases":                      "leases.coordination.k8s.io",
		"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/m": "mutatingwebhookconfigurations.admissionregistration.k8s.io",
		"/v3/auth/tokens":                                                       "/v3/auth/tokens",
		"/apis":                                                                 "/apis",
	} {
		if got := KubeResource(path); got != want {
			t.Errorf("KubeResource(%q) = %q, want %q", path, got, want)
		}
	}
}

// Classify sees each request's body and the backend still receives it
// whole; only non-empty classes are counted.
func TestCountingProxy_Classify(t *testing.T) {
	var got []string
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, string(b))
	}))
	defer backend.Close()
	p, err := NewCountingProxy(backend.URL, CountingProxyOptions{Classify: func(r *http.Request, body []byte) string {
		if strings.Contains(string(body), "password") {
			return "login"
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, body := range []string{`{"methods":["password"]}`, `{"methods":["token"]}`, ""} {
		resp, err := http.Post(p.URL+"/v3/auth/tokens", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if c := p.CountsByClass(); len(c) != 1 || c["login"] != 1 {
		t.Fatalf("classes %v, want 1 login", c)
	}
	if len(got) != 3 || got[0] != `{"methods":["password"]}` || got[1] != `{"methods":["token"]}` || got[2] != "" {
		t.Fatalf("backend received %q, want the three bodies whole", got)
	}
}
