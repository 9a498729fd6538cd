package cloudsyaml

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"

	"sigs.k8s.io/yaml"
)

// Key is the data key under which a clouds.yaml document is stored in a
// Secret, by K-ORC (CloudCredentialsReference: "must contain a key named
// clouds.yaml") and in the delivered Secrets
// (docs/reference/keystoneservice.md, "Consumer Secret contract";
// docs/reference/keystoneapplicationcredential.md, "Delivered Secret
// contract").
const Key = "clouds.yaml"

// Auth types written to auth_type.
const (
	// AuthTypePassword is keystoneauth's generic password plugin; with
	// identity_api_version 3 it authenticates against Keystone v3. It is the
	// default when auth_type is absent.
	AuthTypePassword = "password"
	// AuthTypeV3ApplicationCredential authenticates with an application
	// credential id and secret (Keystone v3 only).
	AuthTypeV3ApplicationCredential = "v3applicationcredential"
)

// IdentityAPIVersion3 is the only identity API version orderhub writes.
const IdentityAPIVersion3 APIVersion = "3"

// Endpoint interfaces accepted in interface / endpoint_type.
const (
	InterfacePublic   = "public"
	InterfaceInternal = "internal"
	InterfaceAdmin    = "admin"
)

// ErrCloudNotFound is returned (wrapped) when a document has no cloud of the
// requested name.
var ErrCloudNotFound = errors.New("cloudsyaml: no such cloud")

// File is a whole clouds.yaml document: clouds keyed by cloud name.
type File struct {
	Clouds map[string]Cloud `json:"clouds"`
}

// Cloud is one entry under clouds:. Only the fields orderhub writes or reads
// are modelled; unknown fields are dropped on parse.
type Cloud struct {
	// AuthType selects the keystoneauth plugin: empty (password),
	// AuthTypePassword or AuthTypeV3ApplicationCredential.
	AuthType string `json:"auth_type,omitempty"`
	// Auth carries the credentials.
	Auth Auth `json:"auth"`
	// RegionName is the catalog region, e.g. RegionOne.
	RegionName string `json:"region_name,omitempty"`
	// Interface is the catalog endpoint interface (public, internal, admin)
	// as openstacksdk reads it.
	Interface string `json:"interface,omitempty"`
	// EndpointType is the same interface under the key K-ORC reads.
	EndpointType string `json:"endpoint_type,omitempty"`
	// IdentityAPIVersion is the Keystone API major version; orderhub writes 3.
	IdentityAPIVersion APIVersion `json:"identity_api_version,omitempty"`
	// CACert is the path of a PEM CA bundle file to verify the auth URL with.
	CACert string `json:"cacert,omitempty"`
	// Verify turns TLS verification off when false; nil means verify.
	Verify *bool `json:"verify,omitempty"`
}

// Auth is the auth: block of a cloud. Password auth uses the user and project
// fields; application-credential auth uses the ApplicationCredential fields.
type Auth struct {
	// AuthURL is the Keystone endpoint, e.g. https://keystone.example/v3.
	AuthURL string `json:"auth_url"`

	Username          string `json:"username,omitempty"`
	UserID            string `json:"user_id,omitempty"`
	Password          string `json:"password,omitempty"`
	UserDomainName    string `json:"user_domain_name,omitempty"`
	UserDomainID      string `json:"user_domain_id,omitempty"`
	ProjectName       string `json:"project_name,omitempty"`
	ProjectID         string `json:"project_id,omitempty"`
	ProjectDomainName string `json:"project_domain_name,omitempty"`
	ProjectDomainID   string `json:"project_domain_id,omitempty"`

	ApplicationCredentialID     string `json:"application_credential_id,omitempty"`
	ApplicationCredentialName   string `json:"application_credential_name,omitempty"`
	ApplicationCredentialSecret string `json:"application_credential_secret,omitempty"`
}

// APIVersion is an API version that YAML may spell as a number (3) or a
// string ("3"). It is written as a number when it is one.
type APIVersion string

// MarshalJSON writes a numeric version as a JSON number, anything else as a string.
func (v APIVersion) MarshalJSON() ([]byte, error) {
	if _, err := strconv.ParseFloat(string(v), 64); err == nil {
		return []byte(v), nil
	}
	return json.Marshal(string(v))
}

// UnmarshalJSON accepts a JSON number or string.
func (v *APIVersion) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*v = APIVersion(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("identity_api_version: %w", err)
	}
	*v = APIVersion(n.String())
	return nil
}

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
		Auth: Auth{
			AuthURL: p.AuthURL, Username: p.Username, Password: p.Password,
			UserDomainName: p.UserDomainName, ProjectName: p.ProjectName, ProjectDomainName: p.ProjectDomainName,
		},
		RegionName: p.Region, Interface: p.Interface, EndpointType: p.Interface,
		IdentityAPIVersion: IdentityAPIVersion3, CACert: p.CACertFile,
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
		Auth: Auth{AuthURL: p.AuthURL, ApplicationCredentialID: p.ID,
			ApplicationCredentialSecret: p.Secret},
		RegionName: p.Region, Interface: p.Interface, EndpointType: p.Interface,
		IdentityAPIVersion: IdentityAPIVersion3, CACert: p.CACertFile,
	}
}

// Validate reports the first reason the cloud is not usable: a missing or
// non-http(s) auth_url, an identity_api_version other than 3, an unknown
// interface or auth type, or missing credentials for its auth type. Error
// messages never contain a password or secret.
func (c Cloud) Validate() error {
	u, err := url.Parse(c.Auth.AuthURL)
	if c.Auth.AuthURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("cloudsyaml: auth_url %q is not an http(s) URL", c.Auth.AuthURL)
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
	switch c.AuthType {
	case "", AuthTypePassword, "v3password":
		if c.Auth.Username == "" && c.Auth.UserID == "" {
			return errors.New("cloudsyaml: password auth needs username or user_id")
		}
		if c.Auth.Password == "" {
			return errors.New("cloudsyaml: password auth needs a password")
		}
	case AuthTypeV3ApplicationCredential:
		if c.Auth.ApplicationCredentialID == "" && c.Auth.ApplicationCredentialName == "" {
			return errors.New("cloudsyaml: v3applicationcredential auth needs application_credential_id")
		}
		if c.Auth.ApplicationCredentialSecret == "" {
			return errors.New("cloudsyaml: v3applicationcredential auth needs application_credential_secret")
		}
	default:
		return fmt.Errorf("cloudsyaml: unsupported auth_type %q", c.AuthType)
	}
	return nil
}

// Render returns the YAML of a document holding the single cloud name. It
// fails when name is empty or the cloud does not Validate.
func Render(name string, c Cloud) ([]byte, error) {
	return File{Clouds: map[string]Cloud{name: c}}.Render()
}

// Render returns the document's YAML after validating every cloud. Clouds are
// written in name order, so equal documents render to equal bytes (a content
// hash over them is stable).
func (f File) Render() ([]byte, error) {
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
		if err := f.Clouds[n].Validate(); err != nil {
			return nil, fmt.Errorf("cloud %q: %w", n, err)
		}
	}
	return yaml.Marshal(f) // map keys are sorted by encoding/json
}

// Parse reads a clouds.yaml document. It fails on invalid YAML or a document
// without a clouds: map; clouds are not validated (see Cloud.Validate).
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
