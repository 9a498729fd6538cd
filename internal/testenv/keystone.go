package testenv

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Keystone is a running Keystone (Debian python3-keystone, served by its
// single-threaded wsgiref server) on a private SQLite database in WAL mode,
// with fernet tokens, 4 password hash rounds and failed-login counting on.
type Keystone struct {
	// URL is the identity v3 endpoint, http://127.0.0.1:<port>/v3, also
	// registered in the catalog (public, internal, admin) for region Region.
	URL                                    string
	AdminUser, AdminPassword, AdminProject string
	// AdminUserDomain and AdminProjectDomain are the admin's domain names ("Default").
	AdminUserDomain, AdminProjectDomain string
	Region                              string
	// OpenRC and CloudsYAML are files with the admin credentials; the cloud
	// in CloudsYAML is named "admin".
	OpenRC, CloudsYAML string
	// DBPath is the SQLite database, for assertions such as FailedAuthCount.
	DBPath string
}

const (
	keystoneAdminPassword = "orderhub-admin-password"
	keystoneRegion        = "RegionOne"
	// keystonePortPlaceholder is the port the cached template is bootstrapped
	// with; each instance rewrites it in the catalog to its own port.
	keystonePortPlaceholder = "127.0.0.1:1/"
	// defaultKeystoneHashRounds is bcrypt's cheapest cost (Options.KeystoneHashRounds).
	defaultKeystoneHashRounds = 4
)

func keystoneConf(dir string, lockout, hashRounds int, passwordRegex string) string {
	rule := ""
	if passwordRegex != "" {
		rule = "password_regex = " + passwordRegex + "\npassword_regex_description = the test stack's password rule (testenv.Options.KeystonePasswordRegex)\n"
	}
	return fmt.Sprintf(`[DEFAULT]
use_stderr = true
[database]
connection = sqlite:///%[1]s/keystone.db
[token]
provider = fernet
[fernet_tokens]
key_repository = %[1]s/fernet-keys
[fernet_receipts]
key_repository = %[1]s/fernet-keys
[credential]
key_repository = %[1]s/credential-keys
[identity]
password_hash_rounds = %[4]d
[security_compliance]
lockout_failure_attempts = %[2]d
%[3]s`, dir, lockout, rule, hashRounds)
}

// keystoneTemplate returns a folder with a bootstrapped database and key
// repositories, creating it once per Keystone package version under the cache
// (about 15 s); copying it starts an instance in about 3.5 s instead.
func (s *Stack) keystoneTemplate(ctx context.Context) (string, error) {
	ver, err := exec.Command("dpkg-query", "-W", "-f=${Version}", "python3-keystone").Output()
	if err != nil || len(ver) == 0 {
		return "", fmt.Errorf("python3-keystone is not installed: run `make tools` (hack/tools.sh debs)")
	}
	tmpl := filepath.Join(s.tools.cache, "keystone-template", strings.NewReplacer(":", "_", "+", "_").Replace(string(ver)))
	if _, err := os.Stat(filepath.Join(tmpl, "keystone.db")); err == nil {
		return tmpl, nil
	}
	s.logf("bootstrapping the Keystone template %s", tmpl)
	if err := os.MkdirAll(filepath.Dir(tmpl), 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(filepath.Dir(tmpl), ".tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	conf := filepath.Join(work, "keystone.conf")
	if err := os.WriteFile(conf, []byte(keystoneConf(work, 1000, defaultKeystoneHashRounds, "")), 0o600); err != nil {
		return "", err
	}
	url := "http://" + keystonePortPlaceholder + "v3"
	steps := [][]string{
		{"keystone-manage", "--config-file", conf, "db_sync"},
		{"sqlite3", filepath.Join(work, "keystone.db"), "PRAGMA journal_mode=WAL;"},
		{"keystone-manage", "--config-file", conf, "fernet_setup", "--keystone-user", "root", "--keystone-group", "root"},
		{"keystone-manage", "--config-file", conf, "credential_setup", "--keystone-user", "root", "--keystone-group", "root"},
		{"keystone-manage", "--config-file", conf, "bootstrap",
			"--bootstrap-username", "admin", "--bootstrap-project-name", "admin", "--bootstrap-role-name", "admin",
			"--bootstrap-service-name", "keystone", "--bootstrap-region-id", keystoneRegion,
			"--bootstrap-admin-url", url, "--bootstrap-internal-url", url, "--bootstrap-public-url", url},
		// Fold the WAL into the database file so a plain copy carries everything.
		{"sqlite3", filepath.Join(work, "keystone.db"), "PRAGMA wal_checkpoint(TRUNCATE);"},
	}
	for _, st := range steps {
		cmd := exec.CommandContext(ctx, st[0], st[1:]...)
		// The admin password goes through the environment keystone-manage
		// reads it from, not the command line other users can see in ps.
		cmd.Env = append(baseEnv(), "OS_BOOTSTRAP_PASSWORD="+keystoneAdminPassword)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("%s: %v\n%s", strings.Join(st[:min(len(st), 4)], " "), err, out)
		}
	}
	os.Remove(conf)
	if err := os.Rename(work, tmpl); err != nil && !os.IsExist(err) {
		// Another process may have created it first; theirs is as good.
		if _, statErr := os.Stat(filepath.Join(tmpl, "keystone.db")); statErr != nil {
			return "", err
		}
	}
	return tmpl, nil
}

func (s *Stack) startKeystone(ctx context.Context) error {
	tmpl, err := s.keystoneTemplate(ctx)
	if err != nil {
		return err
	}
	dir := filepath.Join(s.Dir, "keystone")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if out, err := exec.Command("cp", "-a", tmpl, dir).CombinedOutput(); err != nil {
		return fmt.Errorf("copy the Keystone template: %v: %s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	db := filepath.Join(dir, "keystone.db")
	hostPort := "127.0.0.1:" + strconv.Itoa(port) + "/"
	sql := fmt.Sprintf("UPDATE endpoint SET url = REPLACE(url, '%s', '%s');", keystonePortPlaceholder, hostPort)
	if out, err := exec.Command("sqlite3", db, sql).CombinedOutput(); err != nil {
		return fmt.Errorf("set the catalog port: %v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "keystone.conf"), []byte(keystoneConf(dir, s.opts.KeystoneLockoutAttempts, s.opts.KeystoneHashRounds, s.opts.KeystonePasswordRegex)), 0o600); err != nil {
		return err
	}
	p, err := s.startProc("keystone", "/usr/bin/keystone-wsgi-public",
		[]string{"--host", "127.0.0.1", "--port", strconv.Itoa(port)},
		[]string{"OS_KEYSTONE_CONFIG_DIR=" + dir}, dir)
	if err != nil {
		return err
	}
	url := "http://" + hostPort + "v3"
	if err := waitFor(ctx, "keystone", p, 2*time.Minute, func(ctx context.Context) error {
		return httpOK(ctx, http.DefaultClient, url, nil)
	}); err != nil {
		return err
	}
	k := &Keystone{URL: url, AdminUser: "admin", AdminPassword: keystoneAdminPassword, AdminProject: "admin",
		AdminUserDomain: "Default", AdminProjectDomain: "Default", Region: keystoneRegion, DBPath: db,
		OpenRC: filepath.Join(s.Dir, "admin-openrc"), CloudsYAML: filepath.Join(s.Dir, "clouds.yaml")}
	var rc strings.Builder
	for _, kv := range k.Env() {
		fmt.Fprintf(&rc, "export %s\n", shellQuoteKV(kv))
	}
	if err := os.WriteFile(k.OpenRC, []byte(rc.String()), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(k.CloudsYAML, []byte(k.CloudsYAMLDocument("admin")), 0o600); err != nil {
		return err
	}
	s.Keystone = k
	return nil
}

// Env returns the admin's OS_* variables, as an openrc file exports them.
func (k *Keystone) Env() []string {
	return []string{
		"OS_AUTH_URL=" + k.URL,
		"OS_USERNAME=" + k.AdminUser,
		"OS_PASSWORD=" + k.AdminPassword,
		"OS_PROJECT_NAME=" + k.AdminProject,
		"OS_USER_DOMAIN_NAME=" + k.AdminUserDomain,
		"OS_PROJECT_DOMAIN_NAME=" + k.AdminProjectDomain,
		"OS_REGION_NAME=" + k.Region,
		"OS_INTERFACE=public",
		"OS_IDENTITY_API_VERSION=3",
	}
}

// CloudsYAMLDocument renders a clouds.yaml with the admin credentials under
// the given cloud name.
func (k *Keystone) CloudsYAMLDocument(cloud string) string {
	return fmt.Sprintf(`clouds:
  %s:
    auth:
      auth_url: %s
      username: %s
      password: %s
      project_name: %s
      user_domain_name: %s
      project_domain_name: %s
    region_name: %s
    interface: public
    identity_api_version: 3
`, cloud, k.URL, k.AdminUser, k.AdminPassword, k.AdminProject, k.AdminUserDomain, k.AdminProjectDomain, k.Region)
}

// FailedAuthCount returns Keystone's failed-login counter for a local user
// (local_user.failed_auth_count; 0 when never failed or reset by a success).
func (k *Keystone) FailedAuthCount(userID string) (int, error) {
	if strings.ContainsAny(userID, "'\"") {
		return 0, fmt.Errorf("invalid user id %q", userID)
	}
	out, err := exec.Command("sqlite3", "-cmd", ".timeout 5000", k.DBPath,
		fmt.Sprintf("SELECT COALESCE(failed_auth_count, 0) FROM local_user WHERE user_id = '%s';", userID)).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("sqlite3: %v: %s", err, out)
	}
	s := strings.TrimSpace(string(out))
	if s == "" {
		return 0, fmt.Errorf("no local user with id %s", userID)
	}
	return strconv.Atoi(s)
}

func shellQuoteKV(kv string) string {
	k, v, _ := strings.Cut(kv, "=")
	return k + "='" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}
