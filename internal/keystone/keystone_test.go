package keystone

import (
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

func TestIsDefaultDomain(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"": true, "default": true, "Default": true, "DEFAULT": true, "dEfAuLt": true,
		"service": false, "default.": false, "defaults": false, " default": false,
	} {
		if got := IsDefaultDomain(name); got != want {
			t.Errorf("IsDefaultDomain(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestPickByName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		items  []Named
		want   string
		wantID string
		ok     bool
	}{
		{"nothing listed", nil, "svc", "", false},
		{"exact match wins over folded", []Named{{"1", "SVC"}, {"2", "svc"}}, "svc", "2", true},
		{"folded match when no exact", []Named{{"1", "Service"}}, "service", "1", true},
		{"lowest id among exact", []Named{{"b", "x"}, {"a", "x"}}, "x", "a", true},
		{"regex characters are literal", []Named{{"1", "a.b"}, {"2", "axb"}}, "a.b", "1", true},
		{"comma and underscore names", []Named{{"1", "cinder_nova,x"}}, "cinder_nova,x", "1", true},
		{"a prefix is no match", []Named{{"1", "cinder"}}, "cinde", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := PickByName(tc.items, tc.want)
			if ok != tc.ok || got.ID != tc.wantID {
				t.Fatalf("PickByName = %v, %v; want id %q, %v", got, ok, tc.wantID, tc.ok)
			}
		})
	}
}

func TestClassifyProbe(t *testing.T) {
	t.Parallel()
	code := func(c int) error { return gophercloud.ErrUnexpectedResponseCode{Actual: c} }
	tests := []struct {
		name    string
		err     error
		want    ProbeResult
		wantErr bool
	}{
		{"token issued", nil, ProbeAccepted, false},
		{"401 rejected", code(401), ProbeRejected, false},
		{"403 is not a rejection", code(403), 0, true},
		{"500 is not a rejection", code(500), 0, true},
		{"network error is not a rejection", &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "dial", Err: errors.New("refused")}}, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ClassifyProbe(tc.err)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Fatalf("ClassifyProbe = %v, %v; want %v, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestIsNetwork(t *testing.T) {
	t.Parallel()
	if !IsNetwork(&url.Error{Op: "Get", URL: "http://x", Err: errors.New("boom")}) {
		t.Error("url.Error is a network error")
	}
	if IsNetwork(gophercloud.ErrUnexpectedResponseCode{Actual: 401}) {
		t.Error("a 401 is not a network error")
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"OS_AUTH_URL": "https://keystone/v3", "OS_USERNAME": "admin", "OS_PASSWORD": "pw",
		"OS_USER_DOMAIN_NAME": "Default", "OS_PROJECT_NAME": "admin", "OS_PROJECT_DOMAIN_NAME": "Default",
		"OS_CACERT": "/ca.pem", "OS_INTERFACE": "internal",
	}
	c := ConfigFromEnv(func(k string) string { return env[k] })
	if c.AuthURL != "https://keystone/v3" || c.UserDomainName != "Default" || c.ProjectDomainName != "Default" ||
		c.CACert != "/ca.pem" || c.Interface != "internal" || c.ProjectName != "admin" {
		t.Fatalf("unexpected config %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(c.String(), "pw") {
		t.Fatalf("String() leaks the password: %s", c)
	}
	delete(env, "OS_USER_DOMAIN_NAME")
	if err := ConfigFromEnv(func(k string) string { return env[k] }).Validate(); err == nil {
		t.Fatal("a user name without a user domain must not validate")
	}
}

func TestConfigFromCloudsYAML(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "clouds.yaml")
	doc := `clouds:
  admin:
    auth:
      auth_url: http://127.0.0.1:5000/v3
      username: admin
      password: secret
      project_name: admin
      user_domain_name: Default
      project_domain_name: Default
    region_name: RegionOne
    interface: public
    verify: false
`
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := ConfigFromCloudsYAML(p, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if c.Username != "admin" || c.Password != "secret" || c.ProjectDomainName != "Default" || !c.Insecure || c.RegionName != "RegionOne" {
		t.Fatalf("unexpected config %+v", c)
	}
	if _, err := ConfigFromCloudsYAML(p, "other"); err == nil {
		t.Fatal("a missing cloud must be an error")
	}
}
