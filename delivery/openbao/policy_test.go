package openbao

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestTenantPolicy(t *testing.T) {
	p := TenantPolicy("kv-v2", "auth_kubernetes_1234")
	ns := "{{identity.entity.aliases.auth_kubernetes_1234.metadata.service_account_namespace}}"
	paths := regexp.MustCompile(`(?m)^path "([^"]+)"`).FindAllStringSubmatch(p, -1)
	var got []string
	for _, m := range paths {
		got = append(got, m[1])
	}
	want := []string{
		"kv-v2/data/openstack/keystone/" + ns + "/+/service-accounts/credentials",
		"kv-v2/data/openstack/keystone/" + ns + "/+/service-accounts/application-credential",
		"kv-v2/data/openstack/keystone/" + ns + "/+/service-accounts/password",
		"kv-v2/metadata/openstack/keystone/" + ns + "/+/service-accounts/credentials",
		"kv-v2/metadata/openstack/keystone/" + ns + "/+/service-accounts/application-credential",
		"kv-v2/metadata/openstack/keystone/" + ns + "/+/service-accounts/password",
		"auth/token/lookup-self",
		"auth/token/revoke-self",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("paths\n got %q\nwant %q", got, want)
	}
	for _, bad := range []string{"sys/", "*", "list", "sudo"} {
		if strings.Contains(p, bad) {
			t.Errorf("policy contains %q:\n%s", bad, p)
		}
	}
}

// TestTenantPolicyCoversBackupPaths: every backup path the hub pushes,
// rendered for namespace ns, matches a data path of the policy with the
// template resolved to ns, and no path of another namespace does.
func TestTenantPolicyCoversBackupPaths(t *testing.T) {
	p := strings.ReplaceAll(TenantPolicy("kv-v2", "acc"), NamespaceTemplate("acc"), "tenant-a")
	var globs []*regexp.Regexp
	for _, m := range regexp.MustCompile(`(?m)^path "(kv-v2/data/[^"]+)"`).FindAllStringSubmatch(p, -1) {
		globs = append(globs, regexp.MustCompile("^"+strings.ReplaceAll(regexp.QuoteMeta(m[1]), `\+`, `[^/]+`)+"$"))
	}
	allowed := func(path string) bool {
		for _, g := range globs {
			if g.MatchString("kv-v2/data/" + path) {
				return true
			}
		}
		return false
	}
	ks, _ := ServiceAccountCredentialsPath("tenant-a", "glance")
	ac, _ := ApplicationCredentialPath("tenant-a", "app-1a2b3c4d-applicationcredential")
	us, _ := UserPasswordPath("tenant-a", "svc-1a2b3c4d-user")
	for _, path := range []string{ks, ac, us} {
		if !allowed(path) {
			t.Errorf("own path %s not granted", path)
		}
	}
	other, _ := ServiceAccountCredentialsPath("tenant-b", "glance")
	admin, _ := AdminApplicationCredentialPath("tenant-a", "cp")
	for _, path := range []string{other, admin, "openstack/keystone/tenant-a/x", "openstack/keystone/tenant-a/a/b/service-accounts/credentials"} {
		if allowed(path) {
			t.Errorf("path %s granted", path)
		}
	}
}

// TestTenantPolicyDocumented: the policy docs/reference/openbao.md tells an
// operator to write is the one the local stack writes (the shell fills in
// ${ACCESSOR}).
func TestTenantPolicyDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/reference/openbao.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := TenantPolicy("kv-v2", "${ACCESSOR}"); !strings.Contains(string(b), "<<EOF\n"+want+"EOF\n") {
		t.Fatalf("docs/reference/openbao.md does not carry the policy:\n%s", want)
	}
}
