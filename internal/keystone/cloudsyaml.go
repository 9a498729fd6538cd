package keystone

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gophercloud/gophercloud/v2/openstack/config/clouds"
	"sigs.k8s.io/yaml"
)

// ConfigFromCloudsYAML reads cloud from the clouds.yaml at path, with
// gophercloud's clouds.yaml types (github.com/gophercloud/gophercloud/v2
// openstack/config/clouds): password, application credential and token
// entries (auth_type). It returns an error when the file cannot be read or
// parsed or has no such cloud.
func ConfigFromCloudsYAML(path, cloud string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("keystone: read clouds.yaml: %w", err)
	}
	var f clouds.Clouds
	if err := yaml.Unmarshal(b, &f); err != nil {
		return Config{}, fmt.Errorf("keystone: parse %s: %w", path, err)
	}
	cl, ok := f.Clouds[cloud]
	if !ok {
		return Config{}, fmt.Errorf("keystone: %s has no cloud %q", path, cloud)
	}
	return configFromCloud(cl), nil
}

// configFromCloud maps one clouds.yaml entry; domain_name/domain_id fill the
// user and project domains when the specific ones are unset.
func configFromCloud(cl clouds.Cloud) Config {
	a := clouds.AuthInfo{}
	if cl.AuthInfo != nil {
		a = *cl.AuthInfo
	}
	return Config{
		AuthURL: a.AuthURL, Username: a.Username, UserID: a.UserID, Password: a.Password,
		UserDomainName:    firstNonEmpty(a.UserDomainName, a.DomainName),
		UserDomainID:      firstNonEmpty(a.UserDomainID, a.DomainID),
		ProjectName:       a.ProjectName,
		ProjectID:         a.ProjectID,
		ProjectDomainName: firstNonEmpty(a.ProjectDomainName, a.DomainName),
		ProjectDomainID:   firstNonEmpty(a.ProjectDomainID, a.DomainID),
		RegionName:        cl.RegionName, Interface: firstNonEmpty(cl.Interface, cl.EndpointType), CACert: cl.CACertFile,
		Insecure: cl.Verify != nil && !*cl.Verify,

		AuthType:                    string(cl.AuthType),
		Token:                       a.Token,
		ApplicationCredentialID:     a.ApplicationCredentialID,
		ApplicationCredentialName:   a.ApplicationCredentialName,
		ApplicationCredentialSecret: a.ApplicationCredentialSecret,
	}
}

// findCloudsYAML is the first clouds.yaml found where the openstack CLI
// looks: OS_CLIENT_CONFIG_FILE, ./clouds.yaml, ~/.config/openstack/clouds.yaml,
// /etc/openstack/clouds.yaml; "" when none is.
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
