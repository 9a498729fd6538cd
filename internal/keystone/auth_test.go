package keystone

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every admin credential an openrc configures: password, application
// credential (ID, or name with its user) and token; each error names the
// missing variable.
func TestConfigAuthMethods(t *testing.T) {
	t.Parallel()
	base := map[string]string{"OS_AUTH_URL": "http://keystone:5000/v3"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		method  string
		wantErr string // "" : valid
	}{
		{"password", with("OS_USERNAME", "admin", "OS_PASSWORD", "pw", "OS_USER_DOMAIN_NAME", "Default",
			"OS_PROJECT_NAME", "admin", "OS_PROJECT_DOMAIN_NAME", "Default"), AuthPassword, ""},
		{"application credential by ID (no user)", with("OS_APPLICATION_CREDENTIAL_ID", "ac1", "OS_APPLICATION_CREDENTIAL_SECRET", "s"),
			AuthApplicationCredential, ""},
		{"application credential by ID, explicit auth type", with("OS_AUTH_TYPE", "v3applicationcredential",
			"OS_APPLICATION_CREDENTIAL_ID", "ac1", "OS_APPLICATION_CREDENTIAL_SECRET", "s"), AuthApplicationCredential, ""},
		{"application credential by name and user", with("OS_APPLICATION_CREDENTIAL_NAME", "orderhub", "OS_APPLICATION_CREDENTIAL_SECRET", "s",
			"OS_USERNAME", "admin", "OS_USER_DOMAIN_NAME", "Default"), AuthApplicationCredential, ""},
		{"application credential without its secret", with("OS_AUTH_TYPE", "v3applicationcredential", "OS_APPLICATION_CREDENTIAL_ID", "ac1"),
			AuthApplicationCredential, "OS_APPLICATION_CREDENTIAL_SECRET"},
		{"application credential ID alone: its secret is named", with("OS_APPLICATION_CREDENTIAL_ID", "ac1"),
			AuthApplicationCredential, "no application credential secret (OS_APPLICATION_CREDENTIAL_SECRET)"},
		{"application credential without ID or name", with("OS_APPLICATION_CREDENTIAL_SECRET", "s"),
			AuthApplicationCredential, "OS_APPLICATION_CREDENTIAL_ID"},
		{"application credential name without its user", with("OS_APPLICATION_CREDENTIAL_NAME", "orderhub", "OS_APPLICATION_CREDENTIAL_SECRET", "s"),
			AuthApplicationCredential, "OS_USER_ID, or OS_USERNAME"},
		{"application credential name, user without domain", with("OS_APPLICATION_CREDENTIAL_NAME", "orderhub", "OS_APPLICATION_CREDENTIAL_SECRET", "s",
			"OS_USERNAME", "admin"), AuthApplicationCredential, "OS_USER_DOMAIN_NAME"},
		{"token, used as it is", with("OS_TOKEN", "tok"), AuthToken, ""},
		{"token scoped to a project", with("OS_AUTH_TYPE", "v3token", "OS_TOKEN", "tok", "OS_PROJECT_NAME", "admin",
			"OS_PROJECT_DOMAIN_NAME", "Default"), AuthToken, ""},
		{"auth type token without a token", with("OS_AUTH_TYPE", "token"), AuthToken, "OS_TOKEN"},
		{"token, project without its domain", with("OS_TOKEN", "tok", "OS_PROJECT_NAME", "admin"), AuthToken, "OS_PROJECT_DOMAIN_NAME"},
		{"nothing", with(), AuthPassword, "OS_USERNAME"},
		{"unsupported auth type", with("OS_AUTH_TYPE", "v3oidcpassword"), "", "OS_AUTH_TYPE=v3oidcpassword"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ConfigFromEnv(func(k string) string { return tc.env[k] })
			if m, _ := c.Method(); m != tc.method {
				t.Errorf("Method() = %q, want %q", m, tc.method)
			}
			err := c.Validate()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Validate = %v, want an error naming %s", err, tc.wantErr)
			}
			for _, secret := range []string{"pw", "s", "tok"} {
				if strings.Contains(c.String(), "="+secret) || strings.HasSuffix(c.credential(), " "+secret) {
					t.Errorf("String() %q shows a secret", c.String())
				}
			}
		})
	}
}

// authOptions sends what each method needs and nothing else: no scope with
// an application credential (Keystone refuses one), no renewal for a token
// used as it is (gophercloud refuses it).
func TestAuthOptions(t *testing.T) {
	t.Parallel()
	ac := Config{AuthURL: "u", ApplicationCredentialID: "ac1", ApplicationCredentialSecret: "s", Username: "admin",
		UserDomainName: "Default", ProjectName: "admin", ProjectDomainName: "Default"}
	ao := ac.authOptions()
	if ao.ApplicationCredentialID != "ac1" || ao.ApplicationCredentialSecret != "s" || ao.Scope != nil || ao.Username != "" || ao.Password != "" {
		t.Errorf("application credential by ID: %+v", ao)
	}
	byName := Config{AuthURL: "u", ApplicationCredentialName: "oh", ApplicationCredentialSecret: "s", Username: "admin", UserDomainName: "Default"}
	if ao := byName.authOptions(); ao.ApplicationCredentialName != "oh" || ao.Username != "admin" || ao.DomainName != "Default" || ao.Scope != nil {
		t.Errorf("application credential by name: %+v", ao)
	}
	tok := Config{AuthURL: "u", Token: "tok"}
	if ao := tok.authOptions(); ao.TokenID != "tok" || ao.Scope != nil || ao.AllowReauth {
		t.Errorf("token used as it is: %+v", ao)
	}
	tok.ProjectName, tok.ProjectDomainName = "admin", "Default"
	if ao := tok.authOptions(); ao.TokenID != "tok" || ao.Scope == nil || ao.Scope.ProjectName != "admin" || !ao.AllowReauth {
		t.Errorf("token scoped to a project: %+v", ao)
	}
	pw := Config{AuthURL: "u", Username: "admin", Password: "pw", UserDomainName: "Default", ProjectID: "p1"}
	if ao := pw.authOptions(); ao.Password != "pw" || ao.DomainName != "Default" || ao.Scope == nil || ao.Scope.ProjectID != "p1" || !ao.AllowReauth {
		t.Errorf("password: %+v", ao)
	}
}

func TestConfigFromCloudsYAMLCredentials(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "clouds.yaml")
	doc := `clouds:
  appcred:
    auth_type: v3applicationcredential
    auth:
      auth_url: http://127.0.0.1:5000/v3
      application_credential_id: ac1
      application_credential_secret: s
  token:
    auth_type: token
    auth:
      auth_url: http://127.0.0.1:5000/v3
      token: tok
      project_name: admin
      project_domain_name: Default
`
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := ConfigFromCloudsYAML(p, "appcred")
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := a.Method(); m != AuthApplicationCredential || a.ApplicationCredentialID != "ac1" || a.Validate() != nil {
		t.Errorf("appcred: %+v (%v)", a, a.Validate())
	}
	tk, err := ConfigFromCloudsYAML(p, "token")
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := tk.Method(); m != AuthToken || tk.Token != "tok" || tk.ProjectName != "admin" || tk.Validate() != nil {
		t.Errorf("token: %+v (%v)", tk, tk.Validate())
	}
}
