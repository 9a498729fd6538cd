package keystone

import (
	"errors"
	"fmt"
	"os"
	"strings"
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

	// AuthType is OS_AUTH_TYPE (clouds.yaml auth_type): password,
	// v3password, token, v3token or v3applicationcredential; empty: inferred
	// (Method).
	AuthType                    string
	Token                       string // OS_TOKEN; never logged
	ApplicationCredentialID     string // OS_APPLICATION_CREDENTIAL_ID
	ApplicationCredentialName   string // OS_APPLICATION_CREDENTIAL_NAME (with the user)
	ApplicationCredentialSecret string // OS_APPLICATION_CREDENTIAL_SECRET; never logged
}

// String describes the configuration without a secret.
func (c Config) String() string {
	return fmt.Sprintf("%s as %s", c.AuthURL, c.credential())
}

// Validate reports the first missing setting needed to authenticate with the
// configured method (Method), naming the variable to set.
func (c Config) Validate() error {
	if c.AuthURL == "" {
		return errors.New("keystone: no auth URL (OS_AUTH_URL or clouds.yaml auth.auth_url)")
	}
	m, err := c.Method()
	if err != nil {
		return err
	}
	switch m {
	case AuthApplicationCredential:
		return c.validateApplicationCredential()
	case AuthToken:
		if c.Token == "" {
			return errors.New("keystone: no token (OS_TOKEN or clouds.yaml auth.token) for auth type token")
		}
		return c.validateProject()
	}
	return c.validatePassword()
}

func (c Config) validatePassword() error {
	switch {
	case c.Username == "" && c.UserID == "":
		return errors.New("keystone: no user (OS_USERNAME or OS_USER_ID; or an application credential: OS_APPLICATION_CREDENTIAL_ID and OS_APPLICATION_CREDENTIAL_SECRET; or a token: OS_TOKEN)")
	case c.Password == "":
		return errors.New("keystone: no password (OS_PASSWORD)")
	case c.Username != "" && c.UserDomainName == "" && c.UserDomainID == "":
		return errors.New("keystone: OS_USERNAME needs OS_USER_DOMAIN_NAME or OS_USER_DOMAIN_ID")
	}
	return c.validateProject()
}

func (c Config) validateProject() error {
	if c.ProjectName != "" && c.ProjectDomainName == "" && c.ProjectDomainID == "" {
		return errors.New("keystone: OS_PROJECT_NAME needs OS_PROJECT_DOMAIN_NAME or OS_PROJECT_DOMAIN_ID")
	}
	return nil
}

// validateApplicationCredential: a secret, and an ID, or a name with its
// user (an application credential name is unique per user only).
func (c Config) validateApplicationCredential() error {
	switch {
	case c.ApplicationCredentialSecret == "":
		return errors.New("keystone: no application credential secret (OS_APPLICATION_CREDENTIAL_SECRET)")
	case c.ApplicationCredentialID != "":
		return nil
	case c.ApplicationCredentialName == "":
		return errors.New("keystone: no application credential (OS_APPLICATION_CREDENTIAL_ID, or OS_APPLICATION_CREDENTIAL_NAME with its user)")
	case c.Username == "" && c.UserID == "":
		return errors.New("keystone: OS_APPLICATION_CREDENTIAL_NAME needs its user (OS_USER_ID, or OS_USERNAME with OS_USER_DOMAIN_NAME or OS_USER_DOMAIN_ID)")
	case c.Username != "" && c.UserDomainName == "" && c.UserDomainID == "":
		return errors.New("keystone: OS_USERNAME needs OS_USER_DOMAIN_NAME or OS_USER_DOMAIN_ID")
	}
	return nil
}

// ConfigFromEnv reads the OS_* variables through getenv (os.Getenv in
// production). gophercloud's openstack.AuthOptionsFromEnv ignores the user
// and project domain variables, OS_CACERT and OS_INTERFACE that
// OpenStack-Helm's admin openrc Secret sets, and OS_TOKEN and OS_AUTH_TYPE,
// so they are mapped here.
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

		AuthType:                    getenv("OS_AUTH_TYPE"),
		Token:                       getenv("OS_TOKEN"),
		ApplicationCredentialID:     getenv("OS_APPLICATION_CREDENTIAL_ID"),
		ApplicationCredentialName:   getenv("OS_APPLICATION_CREDENTIAL_NAME"),
		ApplicationCredentialSecret: getenv("OS_APPLICATION_CREDENTIAL_SECRET"),
	}
	return c
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

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
