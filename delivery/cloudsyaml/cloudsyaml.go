package cloudsyaml

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"

	"github.com/gophercloud/gophercloud/v2/openstack/config/clouds"
	"sigs.k8s.io/yaml"
)

// Key is the data key under which a clouds.yaml document is stored in a
// Secret, by K-ORC (CloudCredentialsReference: "must contain a key named
// clouds.yaml") and in the delivered Secrets
// (docs/reference/keystoneservice.md, "Consumer Secret contract";
// docs/reference/keystoneapplicationcredential.md, "Delivered Secret
// contract").
const Key = "clouds.yaml"

// File, Cloud and Auth are gophercloud's clouds.yaml types
// (github.com/gophercloud/gophercloud/v2/openstack/config/clouds).
type (
	File  = clouds.Clouds
	Cloud = clouds.Cloud
	Auth  = clouds.AuthInfo
	// AuthType is auth_type's value.
	AuthType = clouds.AuthType
)

// Auth types written to auth_type.
const (
	// AuthTypePassword is keystoneauth's generic password plugin; with
	// identity_api_version 3 it authenticates against Keystone v3. It is the
	// default when auth_type is absent.
	AuthTypePassword = clouds.AuthPassword
	// AuthTypeV3ApplicationCredential authenticates with an application
	// credential id and secret (Keystone v3 only).
	AuthTypeV3ApplicationCredential = clouds.AuthV3ApplicationCredential
)

// IdentityAPIVersion3 is the only identity API version orderhub writes.
const IdentityAPIVersion3 = "3"

// Endpoint interfaces accepted in interface / endpoint_type.
const (
	InterfacePublic   = "public"
	InterfaceInternal = "internal"
	InterfaceAdmin    = "admin"
)

// ErrCloudNotFound is returned (wrapped) when a document has no cloud of the
// requested name.
var ErrCloudNotFound = errors.New("cloudsyaml: no such cloud")

// PasswordParams are the inputs of a password-auth cloud.
type PasswordParams struct {
	AuthURL           string // Keystone v3 URL, http(s)
	Username          string
	Password          string
	UserDomainName    string
	ProjectName       string
	ProjectDomainName string
	Region            string // region_name; empty omits it
	Interface         string // public, internal, admin; empty omits it
	CACertFile        string // path of a CA bundle; empty omits it
}

// Password returns a password-auth cloud (identity_api_version 3).
func Password(p PasswordParams) Cloud {
	return Cloud{
		AuthInfo: &Auth{
			AuthURL: p.AuthURL, Username: p.Username, Password: p.Password,
			UserDomainName: p.UserDomainName, ProjectName: p.ProjectName, ProjectDomainName: p.ProjectDomainName,
		},
		RegionName: p.Region, Interface: p.Interface, EndpointType: p.Interface,
		IdentityAPIVersion: IdentityAPIVersion3, CACertFile: p.CACertFile,
	}
}

// ApplicationCredentialParams are the inputs of an application-credential cloud.
type ApplicationCredentialParams struct {
	AuthURL    string // Keystone v3 URL, http(s)
	ID         string // Keystone application credential id
	Secret     string // the credential's secret
	Region     string // region_name; empty omits it
	Interface  string // public, internal, admin; empty omits it
	CACertFile string // path of a CA bundle; empty omits it
}

// ApplicationCredential returns a v3applicationcredential cloud
// (identity_api_version 3). A token issued with it is scoped to the project
// the credential was created on, so the document names no project.
func ApplicationCredential(p ApplicationCredentialParams) Cloud {
	return Cloud{
		AuthType: AuthTypeV3ApplicationCredential,
		AuthInfo: &Auth{AuthURL: p.AuthURL, ApplicationCredentialID: p.ID,
			ApplicationCredentialSecret: p.Secret},
		RegionName: p.Region, Interface: p.Interface, EndpointType: p.Interface,
		IdentityAPIVersion: IdentityAPIVersion3, CACertFile: p.CACertFile,
	}
}

// AuthOf returns c's auth: block, the zero Auth when the document has none.
func AuthOf(c Cloud) Auth {
	if c.AuthInfo == nil {
		return Auth{}
	}
	return *c.AuthInfo
}

// Validate reports the first reason c is not usable: a missing or
// non-http(s) auth_url, an identity_api_version other than 3, an unknown
// interface or auth type, or missing credentials for its auth type. Error
// messages never contain a password or secret. gophercloud validates only
// when it authenticates, so this check is ours.
func Validate(c Cloud) error {
	a := AuthOf(c)
	u, err := url.Parse(a.AuthURL)
	if a.AuthURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("cloudsyaml: auth_url %q is not an http(s) URL", a.AuthURL)
	}
	if c.IdentityAPIVersion != "" && c.IdentityAPIVersion != IdentityAPIVersion3 {
		return fmt.Errorf("cloudsyaml: identity_api_version %q is not 3", c.IdentityAPIVersion)
	}
	for _, i := range []string{c.Interface, c.EndpointType} {
		switch i {
		case "", InterfacePublic, InterfaceInternal, InterfaceAdmin:
		default:
			return fmt.Errorf("cloudsyaml: interface %q is not public, internal or admin", i)
		}
	}
	return validateCredentials(c.AuthType, a)
}

// validateCredentials checks that a carries the credentials of auth type t.
func validateCredentials(t clouds.AuthType, a Auth) error {
	switch t {
	case "", AuthTypePassword, clouds.AuthV3Password:
		if a.Username == "" && a.UserID == "" {
			return errors.New("cloudsyaml: password auth needs username or user_id")
		}
		if a.Password == "" {
			return errors.New("cloudsyaml: password auth needs a password")
		}
	case AuthTypeV3ApplicationCredential:
		if a.ApplicationCredentialID == "" && a.ApplicationCredentialName == "" {
			return errors.New("cloudsyaml: v3applicationcredential auth needs application_credential_id")
		}
		if a.ApplicationCredentialSecret == "" {
			return errors.New("cloudsyaml: v3applicationcredential auth needs application_credential_secret")
		}
	default:
		return fmt.Errorf("cloudsyaml: unsupported auth_type %q", t)
	}
	return nil
}

// Render returns the YAML of a document holding the single cloud name. It
// fails when name is empty or the cloud does not Validate.
func Render(name string, c Cloud) ([]byte, error) {
	return RenderFile(File{Clouds: map[string]Cloud{name: c}})
}

// RenderFile returns the document's YAML after validating every cloud. Keys
// are written sorted, so equal documents render to equal bytes (a content
// hash over them is stable).
func RenderFile(f File) ([]byte, error) {
	if len(f.Clouds) == 0 {
		return nil, errors.New("cloudsyaml: no clouds")
	}
	names := make([]string, 0, len(f.Clouds))
	for n := range f.Clouds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if n == "" {
			return nil, errors.New("cloudsyaml: empty cloud name")
		}
		if err := Validate(f.Clouds[n]); err != nil {
			return nil, fmt.Errorf("cloud %q: %w", n, err)
		}
	}
	return marshal(f)
}

// marshal writes f as YAML (sigs.k8s.io/yaml, sorted keys) with a numeric
// identity_api_version as a number (identity_api_version: 3), as
// openstacksdk's documentation writes it; gophercloud's type is a string,
// which would render as "3".
func marshal(f File) ([]byte, error) {
	j, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Clouds map[string]map[string]any `json:"clouds"`
	}
	if err := json.Unmarshal(j, &doc); err != nil {
		return nil, err
	}
	for _, c := range doc.Clouds {
		if v, ok := c["identity_api_version"].(string); ok && json.Valid([]byte(v)) {
			var n json.Number
			if json.Unmarshal([]byte(v), &n) == nil {
				c["identity_api_version"] = n
			}
		}
	}
	return yaml.Marshal(doc)
}

// Parse reads a clouds.yaml document into gophercloud's types. It fails on
// invalid YAML or a document without a clouds: map; clouds are not
// validated (see Validate). A numeric identity_api_version reads as its
// decimal string.
func Parse(b []byte) (*File, error) {
	var f File
	if err := yaml.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("cloudsyaml: parse: %w", err)
	}
	if f.Clouds == nil {
		return nil, errors.New("cloudsyaml: document has no clouds map")
	}
	return &f, nil
}

// ParseCloud reads the cloud name from a document. It wraps ErrCloudNotFound
// when the document has no such cloud.
func ParseCloud(b []byte, name string) (Cloud, error) {
	f, err := Parse(b)
	if err != nil {
		return Cloud{}, err
	}
	c, ok := f.Clouds[name]
	if !ok {
		return Cloud{}, fmt.Errorf("%w: %q", ErrCloudNotFound, name)
	}
	return c, nil
}
