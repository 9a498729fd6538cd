package cloudsyaml

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestPasswordRoundTrip(t *testing.T) {
	c := Password(PasswordParams{AuthURL: "http://keystone.openstack.svc:5000/v3", Username: "workflow",
		Password: "p@ss: 'w\"rd", UserDomainName: "Default", ProjectName: "service-workflow",
		ProjectDomainName: "Default", Region: "RegionOne", Interface: InterfaceInternal})
	b, err := Render("workflow", c)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"identity_api_version: 3\n", "interface: internal\n", "endpoint_type: internal\n",
		"region_name: RegionOne\n", "user_domain_name: Default\n", "project_domain_name: Default\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("rendered document lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "auth_type") || strings.Contains(string(b), "cacert") {
		t.Errorf("password document carries auth_type or cacert:\n%s", b)
	}
	got, err := ParseCloud(b, "workflow")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, c)
	}
}

func TestApplicationCredentialRoundTrip(t *testing.T) {
	c := ApplicationCredential(ApplicationCredentialParams{AuthURL: "https://keystone.example.com/v3",
		ID: "0123abcd", Secret: "s3cr3t", Region: "RegionOne", Interface: InterfacePublic, CACertFile: "/etc/ca.pem"})
	b, err := Render("openstack", c)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"auth_type: v3applicationcredential\n", "application_credential_id: 0123abcd\n",
		"application_credential_secret: s3cr3t\n", "cacert: /etc/ca.pem\n", "identity_api_version: 3\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("rendered document lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "username") || strings.Contains(string(b), "project_name") {
		t.Errorf("application-credential document names a user or project:\n%s", b)
	}
	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Clouds["openstack"], c) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", f.Clouds["openstack"], c)
	}
	// Rendering is deterministic: equal input, equal bytes.
	b2, _ := Render("openstack", c)
	if string(b) != string(b2) {
		t.Fatal("two renders differ")
	}
}

// A hand-written document (numeric or quoted API version, several clouds,
// fields orderhub does not model) parses.
func TestParseForeignDocument(t *testing.T) {
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
    identity_api_version: 3
    volume_api_version: 3
  other:
    auth_type: v3applicationcredential
    auth:
      auth_url: http://127.0.0.1:5000/v3
      application_credential_id: abc
      application_credential_secret: def
    identity_api_version: "3"
    verify: false
`
	f, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if a := f.Clouds["admin"]; a.IdentityAPIVersion != "3" || a.AuthInfo.Password != "secret" || a.Interface != "public" || Validate(a) != nil {
		t.Fatalf("admin = %+v (%v)", a, Validate(a))
	}
	o := f.Clouds["other"]
	if o.IdentityAPIVersion != "3" || o.Verify == nil || *o.Verify || Validate(o) != nil {
		t.Fatalf("other = %+v (%v)", o, Validate(o))
	}
	if _, err := ParseCloud([]byte(doc), "missing"); !errors.Is(err, ErrCloudNotFound) {
		t.Fatalf("missing cloud: %v", err)
	}
}

func TestParseRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"not yaml":  "clouds: [",
		"no clouds": "foo: bar\n",
	} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Password(PasswordParams{AuthURL: "http://k/v3", Username: "u", Password: "hunter2"})
	if err := Validate(ok); err != nil {
		t.Fatal(err)
	}
	mut := func(f func(*Cloud)) Cloud { c := ok; a := *ok.AuthInfo; c.AuthInfo = &a; f(&c); return c }
	for name, c := range map[string]Cloud{
		"no auth url":       mut(func(c *Cloud) { c.AuthInfo.AuthURL = "" }),
		"relative url":      mut(func(c *Cloud) { c.AuthInfo.AuthURL = "/v3" }),
		"ftp url":           mut(func(c *Cloud) { c.AuthInfo.AuthURL = "ftp://k/v3" }),
		"api version 2":     mut(func(c *Cloud) { c.IdentityAPIVersion = "2.0" }),
		"bad interface":     mut(func(c *Cloud) { c.Interface = "private" }),
		"no user":           mut(func(c *Cloud) { c.AuthInfo.Username = "" }),
		"no password":       mut(func(c *Cloud) { c.AuthInfo.Password = "" }),
		"unknown auth":      mut(func(c *Cloud) { c.AuthType = "token" }),
		"appcred no id":     ApplicationCredential(ApplicationCredentialParams{AuthURL: "http://k/v3", Secret: "hunter2"}),
		"appcred no secret": ApplicationCredential(ApplicationCredentialParams{AuthURL: "http://k/v3", ID: "x"}),
	} {
		err := Validate(c)
		if err == nil {
			t.Errorf("%s: valid", name)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: error leaks the secret: %v", name, err)
		}
		if _, err := Render("c", c); err == nil {
			t.Errorf("%s: rendered", name)
		}
	}
	if _, err := Render("", ok); err == nil {
		t.Error("empty cloud name rendered")
	}
	if _, err := RenderFile(File{}); err == nil {
		t.Error("empty document rendered")
	}
}

// The delivered documents are byte for byte what consumers read before the
// types became gophercloud's: sorted keys, identity_api_version a number,
// values YAML would read as another type quoted.
func TestRenderGolden(t *testing.T) {
	pw, err := Render("c", Password(PasswordParams{AuthURL: "https://k/v3", Username: "true", Password: "123",
		ProjectName: "3", Region: "RegionOne", Interface: InterfaceInternal, CACertFile: "/etc/ca.pem"}))
	if err != nil {
		t.Fatal(err)
	}
	const wantPassword = `clouds:
  c:
    auth:
      auth_url: https://k/v3
      password: "123"
      project_name: "3"
      username: "true"
    cacert: /etc/ca.pem
    endpoint_type: internal
    identity_api_version: 3
    interface: internal
    region_name: RegionOne
`
	if string(pw) != wantPassword {
		t.Errorf("password document:\n%s\nwant:\n%s", pw, wantPassword)
	}
	ac, err := Render("openstack", ApplicationCredential(ApplicationCredentialParams{AuthURL: "https://k/v3",
		ID: "1e5", Secret: "0x10"}))
	if err != nil {
		t.Fatal(err)
	}
	const wantAppCred = `clouds:
  openstack:
    auth:
      application_credential_id: "1e5"
      application_credential_secret: "0x10"
      auth_url: https://k/v3
    auth_type: v3applicationcredential
    identity_api_version: 3
`
	if string(ac) != wantAppCred {
		t.Errorf("application-credential document:\n%s\nwant:\n%s", ac, wantAppCred)
	}
}
