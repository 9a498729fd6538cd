package version

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
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

func TestCommitOf(t *testing.T) {
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "0123abc"}
	for _, tc := range []struct {
		name     string
		ldflag   string
		settings []debug.BuildSetting
		want     string
	}{
		{name: "ldflag wins", ldflag: "fedcba9", settings: []debug.BuildSetting{rev}, want: "fedcba9"},
		{name: "build info", settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, rev}, want: "0123abc"},
		{name: "modified tree", settings: []debug.BuildSetting{rev, {Key: "vcs.modified", Value: "true"}}, want: "0123abc-dirty"},
		{name: "clean tree", settings: []debug.BuildSetting{rev, {Key: "vcs.modified", Value: "false"}}, want: "0123abc"},
		{name: "buildvcs=false", settings: []debug.BuildSetting{{Key: "-buildvcs", Value: "false"}}, want: "unknown"},
	} {
		if got := commitOf(tc.ldflag, tc.settings); got != tc.want {
			t.Errorf("%s: commitOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestInfo(t *testing.T) {
	oldV, oldC := Version, Commit
	Version, Commit = "v1.2.3", "abcdef0"
	t.Cleanup(func() { Version, Commit = oldV, oldC })
	want := "orderhub v1.2.3 commit abcdef0 " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	if got := Info(); got != want {
		t.Errorf("Info() = %q, want %q", got, want)
	}
}
