package keystone

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// Config holds admin credentials for Keystone. Fields left empty are not sent.
// Either Username (with UserDomainName or UserDomainID) or UserID identifies
// the user; ProjectName (with ProjectDomainName or ProjectDomainID) or
// ProjectID selects the project scope.
type Config struct {
	AuthURL           string // OS_AUTH_URL, e.g. http://keystone-api.openstack.svc:5000/v3
	Username          string // OS_USERNAME
	UserID            string // OS_USER_ID
	Password          string // OS_PASSWORD; never logged
	UserDomainName    string // OS_USER_DOMAIN_NAME
	UserDomainID      string // OS_USER_DOMAIN_ID
	ProjectName       string // OS_PROJECT_NAME
	ProjectID         string // OS_PROJECT_ID
	ProjectDomainName string // OS_PROJECT_DOMAIN_NAME
	ProjectDomainID   string // OS_PROJECT_DOMAIN_ID
	RegionName        string // OS_REGION_NAME
	// Interface is OS_INTERFACE (public, internal or admin). The identity API
	// is always reached at AuthURL, which in OpenStack-Helm is already the
	// internal identity endpoint; Interface is kept for callers that look up
	// other services in the catalog.
	Interface string
	CACert    string // OS_CACERT: path of a PEM CA bundle used to verify Keystone
	Insecure  bool   // OS_INSECURE=true or clouds.yaml verify: false
}

// String describes the configuration without the password.
func (c Config) String() string {
	user := c.Username
	if user == "" {
		user = c.UserID
	}
	return fmt.Sprintf("%s as %s (user domain %q, project %q in %q)", c.AuthURL, user,
		firstNonEmpty(c.UserDomainName, c.UserDomainID), firstNonEmpty(c.ProjectName, c.ProjectID),
		firstNonEmpty(c.ProjectDomainName, c.ProjectDomainID))
}

// credential describes the user and scope without the URL and the password.
func (c Config) credential() string {
	user := c.Username
	if user == "" {
		user = c.UserID
	}
	return fmt.Sprintf("user %s in domain %q, project %q in %q", user,
		firstNonEmpty(c.UserDomainName, c.UserDomainID), firstNonEmpty(c.ProjectName, c.ProjectID),
		firstNonEmpty(c.ProjectDomainName, c.ProjectDomainID))
}

// Validate reports the first missing field needed to authenticate.
func (c Config) Validate() error {
	switch {
	case c.AuthURL == "":
		return errors.New("keystone: no auth URL (OS_AUTH_URL or clouds.yaml auth.auth_url)")
	case c.Username == "" && c.UserID == "":
		return errors.New("keystone: no user (OS_USERNAME or OS_USER_ID)")
	case c.Password == "":
		return errors.New("keystone: no password (OS_PASSWORD)")
	case c.Username != "" && c.UserDomainName == "" && c.UserDomainID == "":
		return errors.New("keystone: OS_USERNAME needs OS_USER_DOMAIN_NAME or OS_USER_DOMAIN_ID")
	case c.ProjectName != "" && c.ProjectDomainName == "" && c.ProjectDomainID == "":
		return errors.New("keystone: OS_PROJECT_NAME needs OS_PROJECT_DOMAIN_NAME or OS_PROJECT_DOMAIN_ID")
	}
	return nil
}

// ConfigFromEnv reads the OS_* variables through getenv (os.Getenv in
// production). gophercloud's openstack.AuthOptionsFromEnv ignores the user
// and project domain variables, OS_CACERT and OS_INTERFACE that
// OpenStack-Helm's admin openrc Secret sets, so they are mapped here.
// OS_DOMAIN_NAME/OS_DOMAIN_ID fill both domains when the specific ones are unset.
func ConfigFromEnv(getenv func(string) string) Config {
	c := Config{
		AuthURL:           getenv("OS_AUTH_URL"),
		Username:          getenv("OS_USERNAME"),
		UserID:            firstNonEmpty(getenv("OS_USER_ID"), getenv("OS_USERID")),
		Password:          getenv("OS_PASSWORD"),
		UserDomainName:    firstNonEmpty(getenv("OS_USER_DOMAIN_NAME"), getenv("OS_DOMAIN_NAME")),
		UserDomainID:      firstNonEmpty(getenv("OS_USER_DOMAIN_ID"), getenv("OS_DOMAIN_ID")),
		ProjectName:       firstNonEmpty(getenv("OS_PROJECT_NAME"), getenv("OS_TENANT_NAME")),
		ProjectID:         firstNonEmpty(getenv("OS_PROJECT_ID"), getenv("OS_TENANT_ID")),
		ProjectDomainName: firstNonEmpty(getenv("OS_PROJECT_DOMAIN_NAME"), getenv("OS_DOMAIN_NAME")),
		ProjectDomainID:   firstNonEmpty(getenv("OS_PROJECT_DOMAIN_ID"), getenv("OS_DOMAIN_ID")),
		RegionName:        getenv("OS_REGION_NAME"),
		Interface:         getenv("OS_INTERFACE"),
		CACert:            getenv("OS_CACERT"),
		Insecure:          strings.EqualFold(getenv("OS_INSECURE"), "true"),
	}
	return c
}

// cloudsFile is the subset of clouds.yaml this package reads.
type cloudsFile struct {
	Clouds map[string]struct {
		Auth struct {
			AuthURL           string `json:"auth_url"`
			Username          string `json:"username"`
			UserID            string `json:"user_id"`
			Password          string `json:"password"`
			UserDomainName    string `json:"user_domain_name"`
			UserDomainID      string `json:"user_domain_id"`
			ProjectName       string `json:"project_name"`
			ProjectID         string `json:"project_id"`
			ProjectDomainName string `json:"project_domain_name"`
			ProjectDomainID   string `json:"project_domain_id"`
			DomainName        string `json:"domain_name"`
			DomainID          string `json:"domain_id"`
		} `json:"auth"`
		RegionName string `json:"region_name"`
		Interface  string `json:"interface"`
		CACert     string `json:"cacert"`
		Verify     *bool  `json:"verify"`
	} `json:"clouds"`
}

// ConfigFromCloudsYAML reads cloud from the clouds.yaml at path. It returns an
// error when the file cannot be read or parsed or has no such cloud.
func ConfigFromCloudsYAML(path, cloud string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("keystone: read clouds.yaml: %w", err)
	}
	var f cloudsFile
	if err := yaml.Unmarshal(b, &f); err != nil {
		return Config{}, fmt.Errorf("keystone: parse %s: %w", path, err)
	}
	cl, ok := f.Clouds[cloud]
	if !ok {
		return Config{}, fmt.Errorf("keystone: %s has no cloud %q", path, cloud)
	}
	a := cl.Auth
	c := Config{
		AuthURL: a.AuthURL, Username: a.Username, UserID: a.UserID, Password: a.Password,
		UserDomainName:    firstNonEmpty(a.UserDomainName, a.DomainName),
		UserDomainID:      firstNonEmpty(a.UserDomainID, a.DomainID),
		ProjectName:       a.ProjectName,
		ProjectID:         a.ProjectID,
		ProjectDomainName: firstNonEmpty(a.ProjectDomainName, a.DomainName),
		ProjectDomainID:   firstNonEmpty(a.ProjectDomainID, a.DomainID),
		RegionName:        cl.RegionName, Interface: cl.Interface, CACert: cl.CACert,
		Insecure: cl.Verify != nil && !*cl.Verify,
	}
	return c, nil
}

// LoadConfig finds the admin credentials the way the openstack CLI does:
// when OS_CLOUD is set, that cloud from the first clouds.yaml found in
// OS_CLIENT_CONFIG_FILE, ./clouds.yaml, ~/.config/openstack/clouds.yaml and
// /etc/openstack/clouds.yaml; otherwise the OS_* variables. OS_PASSWORD
// overrides a clouds.yaml password when set.
func LoadConfig() (Config, error) {
	var c Config
	if cloud := os.Getenv("OS_CLOUD"); cloud != "" {
		path := findCloudsYAML()
		if path == "" {
			return Config{}, fmt.Errorf("keystone: OS_CLOUD=%s but no clouds.yaml found", cloud)
		}
		var err error
		if c, err = ConfigFromCloudsYAML(path, cloud); err != nil {
			return Config{}, err
		}
		if pw := os.Getenv("OS_PASSWORD"); pw != "" {
			c.Password = pw
		}
	} else {
		c = ConfigFromEnv(os.Getenv)
	}
	return c, c.Validate()
}

func findCloudsYAML() string {
	cands := []string{os.Getenv("OS_CLIENT_CONFIG_FILE"), "clouds.yaml"}
	if home, err := os.UserHomeDir(); err == nil {
		cands = append(cands, filepath.Join(home, ".config", "openstack", "clouds.yaml"))
	}
	cands = append(cands, "/etc/openstack/clouds.yaml")
	for _, p := range cands {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
