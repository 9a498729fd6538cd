package keystone

import (
	"fmt"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
)

// Authentication methods of the admin credential (Config.Method), as
// keystoneauth names its plugins (https://docs.openstack.org/keystoneauth/latest/plugin-options.html).
const (
	AuthPassword              = "password"
	AuthToken                 = "token"
	AuthApplicationCredential = "v3applicationcredential"
)

// Method is the authentication method of the admin credential. AuthType
// decides when set (password and v3password, token and v3token,
// v3applicationcredential; any other value is an error naming OS_AUTH_TYPE);
// otherwise an application credential ID, name or secret means an
// application credential, a token without a password means a token,
// anything else a password.
func (c Config) Method() (string, error) {
	switch strings.ToLower(c.AuthType) {
	case "password", "v3password":
		return AuthPassword, nil
	case "token", "v3token":
		return AuthToken, nil
	case "v3applicationcredential", "applicationcredential":
		return AuthApplicationCredential, nil
	case "":
	default:
		return "", fmt.Errorf("keystone: OS_AUTH_TYPE=%s is not supported (password, v3password, token, v3token, v3applicationcredential)", c.AuthType)
	}
	switch {
	case c.ApplicationCredentialID != "" || c.ApplicationCredentialName != "" || c.ApplicationCredentialSecret != "":
		return AuthApplicationCredential, nil
	case c.Token != "" && c.Password == "":
		return AuthToken, nil
	}
	return AuthPassword, nil
}

// authOptions are gophercloud's options for the configured method (Validate
// has passed). An application credential carries its project, so no scope is
// sent (Keystone refuses one). A token with a project is exchanged for a
// token scoped to it and renewed with that token until the original expires;
// a token without one is used as it is (gophercloud cannot renew it).
func (c Config) authOptions() gophercloud.AuthOptions {
	m, _ := c.Method()
	ao := gophercloud.AuthOptions{IdentityEndpoint: c.AuthURL, AllowReauth: true}
	switch m {
	case AuthApplicationCredential:
		ao.ApplicationCredentialID, ao.ApplicationCredentialName = c.ApplicationCredentialID, c.ApplicationCredentialName
		ao.ApplicationCredentialSecret = c.ApplicationCredentialSecret
		if c.ApplicationCredentialID == "" {
			ao.Username, ao.UserID, ao.DomainName, ao.DomainID = c.Username, c.UserID, c.UserDomainName, c.UserDomainID
		}
		return ao
	case AuthToken:
		ao.TokenID = c.Token
	default:
		ao.Username, ao.UserID, ao.Password = c.Username, c.UserID, c.Password
		ao.DomainName, ao.DomainID = c.UserDomainName, c.UserDomainID
	}
	if c.ProjectName != "" || c.ProjectID != "" {
		ao.Scope = &gophercloud.AuthScope{ProjectName: c.ProjectName, ProjectID: c.ProjectID,
			DomainName: c.ProjectDomainName, DomainID: c.ProjectDomainID}
	} else if m == AuthToken {
		ao.AllowReauth = false
	}
	return ao
}

// credential describes the admin credential without the URL and any secret.
func (c Config) credential() string {
	user := firstNonEmpty(c.Username, c.UserID)
	project := fmt.Sprintf("project %q in %q", firstNonEmpty(c.ProjectName, c.ProjectID),
		firstNonEmpty(c.ProjectDomainName, c.ProjectDomainID))
	switch m, _ := c.Method(); m {
	case AuthApplicationCredential:
		if c.ApplicationCredentialID != "" {
			return "application credential " + c.ApplicationCredentialID
		}
		return fmt.Sprintf("application credential %s of user %s in domain %q", c.ApplicationCredentialName, user,
			firstNonEmpty(c.UserDomainName, c.UserDomainID))
	case AuthToken:
		if c.ProjectName == "" && c.ProjectID == "" {
			return "a token (OS_TOKEN), used as it is"
		}
		return "a token (OS_TOKEN), " + project
	}
	return fmt.Sprintf("user %s in domain %q, %s", user, firstNonEmpty(c.UserDomainName, c.UserDomainID), project)
}

// check names what to check when Keystone rejects the credential.
func (c Config) check() string {
	switch m, _ := c.Method(); m {
	case AuthApplicationCredential:
		return "OS_APPLICATION_CREDENTIAL_ID (or OS_APPLICATION_CREDENTIAL_NAME and its user) and OS_APPLICATION_CREDENTIAL_SECRET; the credential may have expired or been deleted"
	case AuthToken:
		return "OS_TOKEN; a token expires, and a token credential cannot be renewed after that"
	}
	return "OS_USERNAME, OS_PASSWORD and the domains"
}
