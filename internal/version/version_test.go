package version

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestTransportSetsUserAgent(t *testing.T) {
	old := Version
	Version = "v9.8.7"
	t.Cleanup(func() { Version = old })
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("User-Agent"))
	}))
	defer srv.Close()
	c := &http.Client{Transport: Transport(nil)}
	for _, preset := range []string{"", "rabbit-hole"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		if preset != "" {
			req.Header.Set("User-Agent", preset)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if req.Header.Get("User-Agent") != preset {
			t.Errorf("the caller's request was modified: %q", req.Header.Get("User-Agent"))
		}
	}
	want := []string{"orderhub/v9.8.7", "orderhub/v9.8.7 rabbit-hole"}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("User-Agent headers = %q, want %q", got, want)
	}
}
